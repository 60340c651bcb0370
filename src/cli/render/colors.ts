/** One style: the text wrapped in its escape codes, or the text alone when colour is off. */
export type Style = (text: string) => string;

const STYLES = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const;

/** The styles plants prints with. */
export type Colors = Record<(typeof STYLES)[number], Style>;

/** No colour: every style leaves the text as it is. */
export const plain = Object.fromEntries(STYLES.map((name) => [name, (text: string) => text])) as Colors;

/**
 * The styles in colour, by chalk, imported only here: only a stream that is coloured (a terminal,
 * or FORCE_COLOR) pays for loading it. Whether to colour is decided by the caller (env.ts reads
 * NO_COLOR, FORCE_COLOR and TERM), so chalk is given the level outright: the 16 basic colours,
 * which are all plants uses.
 */
export async function chalkColors(): Promise<Colors> {
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return Object.fromEntries(STYLES.map((name): [string, Style] => [name, chalk[name]])) as Colors;
}
