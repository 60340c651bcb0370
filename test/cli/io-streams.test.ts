import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IOStreams } from '../../src/cli/io-streams.js';

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
