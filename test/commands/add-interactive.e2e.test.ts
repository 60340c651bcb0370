import { describe, expect, it } from 'vitest';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { readStoredPlants, useTestStore } from '../helpers/store-server.js';
import { runCliInTty } from '../helpers/tty.js';
import { useTempUser } from '../helpers/user.js';

// A person at `plants add --file`: stdin on a terminal, and Ctrl-C during a bulk add (issue 19).
const store = useTestStore();
const user = useTempUser(store, { scope: 'test', env: { NO_COLOR: '1' } });

const waitUntil = async (ready: () => boolean, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('plants add --file - on a terminal', () => {
  it('says it is reading stdin and how to end it; Ctrl-D ends the input', async () => {
    const id = 7_100_000_000_000_000_001n;
    const session = runCliInTty(['add', '--file', '-'], user.env);
    await session.waitFor('reading plants from stdin');
    expect(session.screen).toContain('press Ctrl-D on a line of its own to end');
    session.type(`{"id":${id},"name":"Typed"}\n`);
    session.type('\u0004');
    expect(await session.exited).toBe(0);
    expect(session.screen).toContain(`Added plant ${id}: Typed`);
    expect(readStoredPlants(store.dbPath).find((row) => row.id === id)?.name).toBe('Typed');
  });
});

describe('Ctrl-C during a bulk add', () => {
  it('says what it waits for; a second Ctrl-C prints the results so far and the summary ("of N read"), exit 130', async () => {
    // A store that takes requests and never answers: they stay in flight.
    const stalled = await startFixtureServer(() => {});
    try {
      const input = `${Array.from({ length: 50 }, (_, index) => `{"id":${index + 1},"name":"p${index}"}`).join('\n')}\n`;
      const running = user.spawn(['add', '--file', '-', '--concurrency', '4', '--timeout', '120'], {
        env: { PLANTS_BASE_URL: stalled.url },
        timeoutMs: 60_000,
      });
      running.child.stdin.end(input);
      await waitUntil(() => stalled.requests.length >= 4, 'four requests in flight');
      running.child.kill('SIGINT');
      await waitUntil(() => running.stderr.includes('Interrupted'), 'the first Ctrl-C answered');
      expect(running.stderr).toContain(
        'Interrupted: reading no more records; waiting for the answers to 4 requests in flight (Ctrl-C again to stop waiting and print what is known).',
      );
      running.child.kill('SIGINT');
      const { code, stdout, stderr } = await running.exited;
      expect(code).toBe(130);
      const lines = stdout
        .trim()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { line: number; sent: boolean; outcome: string; error: { message: string } },
        );
      expect(lines.map((line) => [line.line, line.sent, line.outcome])).toEqual([
        [1, true, 'unknown'],
        [2, true, 'unknown'],
        [3, true, 'unknown'],
        [4, true, 'unknown'],
      ]);
      expect(lines[0]?.error.message).toBe(
        'sent, no answer: plant 1 may or may not have been added (interrupted before its answer arrived)',
      );
      expect(stderr).toMatch(/✗ Added 0 of 4 read in [\d.]+ s/);
      expect(stderr).toContain('4 unknown (sent, may have been added)');
      expect(stderr).not.toMatch(/of 4 plants/);
    } finally {
      await stalled.close();
    }
  });

  it('while waiting for input that does not come: stops at once, exit 130, the summary "of N read"', async () => {
    const ids = [7_100_000_000_000_000_101n, 7_100_000_000_000_000_102n, 7_100_000_000_000_000_103n];
    const running = user.spawn(['add', '--file', '-'], { timeoutMs: 60_000 });
    // A producer that wrote three records and stalls, stdin still open.
    running.child.stdin.write(`${ids.map((id) => `{"id":${id},"name":"slow"}`).join('\n')}\n`);
    await waitUntil(() => running.stdout.split('\n').length > 3, 'three results');
    running.child.kill('SIGINT');
    const { code, stdout, stderr } = await running.exited;
    expect(code).toBe(130);
    expect(stdout.trim().split('\n')).toHaveLength(3);
    expect(stderr).toContain('Interrupted: reading no more records.');
    expect(stderr).toMatch(/✗ Added 3 of 3 read in/);
  });
});
