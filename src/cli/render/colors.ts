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

const codes = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const satisfies Record<keyof Colors, readonly [number, number]>;

/**
 * The styles, with colour or without. What chalk printed for them, byte for byte (a style
 * closed inside the text is reopened; each line is closed and reopened around its line break),
 * written here because importing chalk (and with it node:tty and node:os) cost every command
 * about a third of Node's own start-up, measured with callgrind, for six escape codes.
 */
export function colors(enabled: boolean): Colors {
  const style = ([open, close]: readonly [number, number]): Style => {
    if (!enabled) return (text) => text;
    const openCode = `\u001B[${open}m`;
    const closeCode = `\u001B[${close}m`;
    return (text) => {
      if (text === '') return text;
      let styled = text.includes('\u001B') ? text.replaceAll(closeCode, closeCode + openCode) : text;
      if (styled.includes('\n')) styled = styled.replace(/\r?\n/g, (lineBreak) => closeCode + lineBreak + openCode);
      return openCode + styled + closeCode;
    };
  };
  return {
    bold: style(codes.bold),
    dim: style(codes.dim),
    red: style(codes.red),
    green: style(codes.green),
    yellow: style(codes.yellow),
    cyan: style(codes.cyan),
  };
}
