import { afterEach, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';

/**
 * `plants serve` stopped as soon as it printed its URL, the line scripts wait for: the README
 * promises a graceful stop and exit 0 for SIGTERM. Found by crash-loop.test.ts while these
 * suites were written (the handlers were installed only after the banner, so the signal's
 * default action killed the process); fixed in src/commands/serve.ts. Kept as a regression test.
 */

let running: ServeProcess | undefined;
afterEach(async () => {
  if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) {
    await running.stop('SIGKILL');
  }
});

describe('plants serve, stopped as soon as it printed its URL', () => {
  it.each([1, 2, 3])('exits 0 on SIGTERM (try %i)', async () => {
    running = await startServeProcess(['--port', '0', '--memory', '--token', 'sigterm-token', '--quiet']);
    expect(await running.stop('SIGTERM')).toBe(0);
  });
});
