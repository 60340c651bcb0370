import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IOStreams } from '../../src/cli/io-streams.js';
import { plain } from '../../src/cli/render/colors.js';
import { Output } from '../../src/cli/render/output.js';

function stream(isTTY?: boolean) {
  return Object.assign(new PassThrough(), isTTY === undefined ? {} : { isTTY }) as unknown as NodeJS.ReadStream &
    NodeJS.WriteStream;
}

describe('IOStreams', () => {
  it('makes stdin on first use only, and once', () => {
    let made = 0;
    const stdin = stream();
    const io = new IOStreams({
      stdin: () => {
        made++;
        return stdin;
      },
      stdout: stream(),
      stderr: stream(),
    });
    expect(made).toBe(0);
    expect(io.stdoutIsTerminal).toBe(false);
    expect(made).toBe(0);
    expect(io.stdin).toBe(stdin);
    expect(io.stdin).toBe(stdin);
    expect(made).toBe(1);
  });

  it('makes stdout and stderr on first use only, and says whether they are terminals without making them', () => {
    const made: string[] = [];
    const io = new IOStreams({
      stdin: stream(),
      stdout: () => {
        made.push('stdout');
        return stream();
      },
      stderr: () => {
        made.push('stderr');
        return stream();
      },
      isTerminal: (fd) => fd === 2,
    });
    expect([io.stdoutIsTerminal, io.stderrIsTerminal, made]).toEqual([false, true, []]);
    io.stdout.write('x');
    expect(made).toEqual(['stdout']);
    io.stderr.write('x');
    expect(made).toEqual(['stdout', 'stderr']);
  });

  it('an Output that only writes data never makes stderr', async () => {
    const made: string[] = [];
    const io = new IOStreams({
      stdin: stream(),
      stdout: stream(),
      stderr: () => {
        made.push('stderr');
        return stream();
      },
      isTerminal: () => false,
    });
    const output = await Output.open(io, { color: 'auto', loadPalette: async () => plain });
    await output.withSpinner('Adding plant 1', async () => output.data('Added'));
    expect(made).toEqual([]);
    output.info('a message');
    expect(made).toEqual(['stderr']);
  });

  it.each([
    [true, true, true],
    [true, false, false],
    [false, true, false],
    [undefined, true, false],
  ])('stdin a terminal: %s, stderr: %s; a prompt can be answered: %s', (stdinTTY, stderrTTY, prompts) => {
    const io = new IOStreams({ stdin: stream(stdinTTY), stdout: stream(), stderr: stream(stderrTTY) });
    expect(io.stdinIsTerminal).toBe(stdinTTY === true);
    expect(io.stderrIsTerminal).toBe(stderrTTY);
    expect(io.canPrompt()).toBe(prompts);
  });
});
