import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { colors } from '../../../src/cli/render/colors.js';

// plants prints its few styles without chalk (for start-up's sake); what reaches a terminal must
// stay what chalk printed. chalk is a dev dependency for this comparison only.
const chalk = new Chalk({ level: 1 });
const styles = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const;
const texts = [
  'plain',
  '',
  '✓ Added plant 9223372036854775807',
  'two\nlines',
  'crlf\r\nline\r\n',
  `nested ${chalk.green('green')} and ${chalk.dim('dim')} inside`,
  `${chalk.bold('bold')} at the start\nand a line`,
];

describe('colors', () => {
  it.each(styles.flatMap((style) => texts.map((text) => [style, text] as const)))(
    '%s of %j is what chalk prints',
    (style, text) => {
      expect(colors(true)[style](text)).toBe(chalk[style](text));
    },
  );

  it.each(styles)('%s without colour is the text itself', (style) => {
    expect(colors(false)[style]('x\ny')).toBe('x\ny');
  });
});
