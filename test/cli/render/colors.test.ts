import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { IOStreams } from '../../../src/cli/io-streams.js';
import { chalkColors, plain } from '../../../src/cli/render/colors.js';
import { Output } from '../../../src/cli/render/output.js';

/** A stream that says it is (or is not) a terminal. */
function stream(isTTY: boolean): NodeJS.WriteStream {
  return Object.assign(new PassThrough(), { isTTY }) as unknown as NodeJS.WriteStream;
}

/** Streams whose stdout and stderr are (or are not) terminals. */
function streams(stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream): IOStreams {
  return new IOStreams({ stdin: new PassThrough() as unknown as NodeJS.ReadStream, stdout, stderr });
}

describe('colour', () => {
  it('is chalk at the 16 basic colours', async () => {
    const colors = await chalkColors();
    expect(colors.red('x')).toBe('\u001B[31mx\u001B[39m');
    expect(colors.bold('two\nlines')).toBe('\u001B[1mtwo\u001B[22m\n\u001B[1mlines\u001B[22m');
    expect(colors.dim(`a ${colors.green('b')} c`)).toBe('\u001B[2ma \u001B[32mb\u001B[39m c\u001B[22m');
  });

  it('is not loaded at all when no stream is coloured (a pipe, NO_COLOR)', async () => {
    for (const [io, mode] of [
      [streams(stream(false), stream(false)), 'auto'],
      [streams(stream(true), stream(true)), 'never'],
    ] as const) {
      const loadPalette = vi.fn(chalkColors);
      const output = await Output.open(io, { color: mode, loadPalette });
      expect(loadPalette).not.toHaveBeenCalled();
      expect(output.color).toBe(plain);
      expect(output.errorColor).toBe(plain);
    }
  });

  it('colours each stream that is a terminal (auto), or every stream (FORCE_COLOR)', async () => {
    const loadPalette = vi.fn(chalkColors);
    const output = await Output.open(streams(stream(false), stream(true)), { color: 'auto', loadPalette });
    expect(loadPalette).toHaveBeenCalledTimes(1);
    expect(output.color.red('x')).toBe('x');
    expect(output.errorColor.red('x')).toBe('\u001B[31mx\u001B[39m');
    const forced = await Output.open(streams(stream(false), stream(false)), { color: 'always' });
    expect(forced.color.green('ok')).toBe('\u001B[32mok\u001B[39m');
  });
});
