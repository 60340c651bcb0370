export type Style = (text: string) => string;

const STYLES = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const;

export type Colors = Record<(typeof STYLES)[number], Style>;

export const plain = Object.fromEntries(STYLES.map((name) => [name, (text: string) => text])) as Colors;

/**
 * The styles in colour by chalk, loaded only for a coloured stream. env.ts decides whether to
 * colour, so chalk is given the level outright: the 16 basic colours, all plants uses.
 */
export async function chalkColors(): Promise<Colors> {
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return Object.fromEntries(STYLES.map((name): [string, Style] => [name, chalk[name]])) as Colors;
}
