import { afterEach, describe, expect, it } from 'vitest';
import { resultLines, runCli } from '../helpers/cli.js';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { type StoreLocation, sqliteBackend } from '../helpers/store-backends.js';

// A request that plants serve --fault stall leaves without an answer, met by a bulk add: sent
// again like a dropped one, and a run stopped only by a store that answers nothing at all.

const TOKEN = 'add-stall-token-0123456789abcdef';
const running: ServeProcess[] = [];
const locations: StoreLocation[] = [];
afterEach(async () => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null) await serve.stop('SIGKILL');
  for (const location of locations.splice(0)) await location.remove();
});

async function stallingStore(
  faults: readonly string[],
  extra: readonly string[] = [],
): Promise<{ url: string; location: StoreLocation }> {
  const location = await sqliteBackend.create();
  locations.push(location);
  const serve = await startServeProcess([
    '--port',
    '0',
    '--quiet',
    '--db',
    location.database,
    '--durability',
    'normal',
    '--token',
    TOKEN,
    ...faults.flatMap((fault) => ['--fault', fault]),
    ...extra,
  ]);
  running.push(serve);
  return { url: serve.url, location };
}

const records = (count: number) =>
  Array.from({ length: count }, (_, index) => `{"id":${index + 1},"name":"plant ${index + 1}"}`).join('\n');

describe('plants add --file through plants serve --fault stall', () => {
  it('sends a request left without an answer again, and adds every record', async () => {
    const { url, location } = await stallingStore(['stall=0.05'], ['--fault-seed', '7']);
    // A stall holds up the requests pipelined behind it on its connection too, and which requests
    // the seeded stalls meet depends on the order they arrive in: retries enough that no record
    // can run out of them by chance.
    const result = await runCli(['add', '--file', '-', '--timeout', '1', '--retries', '10'], {
      env: { PLANTS_BASE_URL: url, PLANTS_TOKEN: TOKEN },
      input: `${records(200)}\n`,
      timeoutMs: 120_000,
    });
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; outcome: string; attempts?: number });
    expect(
      lines.filter((line) => line.outcome !== 'added'),
      result.stderr,
    ).toEqual([]);
    expect(lines).toHaveLength(200);
    // Some were met by a stall, and sent again.
    expect(lines.some((line) => (line.attempts ?? 1) > 1)).toBe(true);
    expect(result.code, result.stderr).toBe(0);
    expect((await location.readPlants()).length).toBe(200);
  }, 120_000);

  it('costs only the stalled request its time-out: those pipelined behind it are sent again at once', async () => {
    // A scripted store that never answers the first add of plant 1 and answers every other
    // request: the seven adds pipelined behind it on the one connection wait for it. When its
    // time is up they are written again on a new connection and answered, none of them timed
    // out itself: with no retries, only plant 1 is read back (then sent once more).
    const ids = Array.from({ length: 8 }, (_, index) => index + 1);
    let stalled = false;
    const store = await startFixtureServer((request, response) => {
      const plant = request.method === 'POST' ? (JSON.parse(request.body) as { id: number }) : undefined;
      if (plant?.id === 1 && !stalled) {
        stalled = true;
        return;
      }
      if (request.method === 'GET') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"no plant"}');
        return;
      }
      response.writeHead(201, { 'content-type': 'application/json' }).end(request.body);
    });
    try {
      const result = await runCli(['add', '--file', '-', '--concurrency', '8', '--timeout', '2', '--retries', '0'], {
        env: { PLANTS_BASE_URL: store.url, PLANTS_TOKEN: TOKEN },
        input: `${ids.map((id) => `{"id":${id},"name":"plant ${id}"}`).join('\n')}\n`,
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(resultLines(result.stdout).map((line) => [line.line, line.outcome])).toEqual(
        ids.map((id) => [id, 'added']),
      );
      expect(store.requests.filter((request) => request.method === 'GET').map((request) => request.url)).toEqual([
        '/plants/1',
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('stops only a store that answers nothing, and says for how long', async () => {
    const { url } = await stallingStore(['stall=1']);
    const result = await runCli(['add', '--file', '-', '--timeout', '1', '--retries', '0', '--concurrency', '1'], {
      env: { PLANTS_BASE_URL: url, PLANTS_TOKEN: TOKEN },
      input: `${records(5)}\n`,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^Stopped: the store answered nothing for \d+ s; the rest was not sent\.$/m);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 60_000);
});
