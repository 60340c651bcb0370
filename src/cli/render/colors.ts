/** One style: the text wrapped in its escape codes, or the text alone when colour is off. */
export type Style = (text: string) => string;

/** The styles plants prints with. */
export interface Colors {
  bold: Style;
  dim: Style;
  red: Style;
  green: Style;
  yellow: Style;
  cyan: Style;
}

const asIs: Style = (text) => text;

/** No colour: every style leaves the text as it is. */
export const plain: Colors = { bold: asIs, dim: asIs, red: asIs, green: asIs, yellow: asIs, cyan: asIs };

/**
 * The styles in colour, by chalk, imported only here: only a stream that is coloured (a terminal,
 * or FORCE_COLOR) pays for loading it. Whether to colour is decided by the caller (env.ts reads
 * NO_COLOR, FORCE_COLOR and TERM), so chalk is given the level outright: the 16 basic colours,
 * which are all plants uses.
 */
export async function chalkColors(): Promise<Colors> {
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return {
    bold: chalk.bold,
    dim: chalk.dim,
    red: chalk.red,
    green: chalk.green,
    yellow: chalk.yellow,
    cyan: chalk.cyan,
  };
}
