import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { longestFaultRun } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { type StoreLocation, sqliteBackend } from '../helpers/store-backends.js';

// A bulk add through plants serve --fault reset: the server commits an add, then drops the
// connection before answering, so the CLI sends it again and meets a 409 for its own plant.
// Issue 15's read-back (GET the plant, compare it with what was sent) must settle that as
// added: this is the final expectation, and it needs that change to pass.

const TOKEN = 'add-through-reset-token-0123456789';
let serve: ServeProcess | undefined;
let location: StoreLocation | undefined;
afterEach(async () => {
  if (serve !== undefined && serve.child.exitCode === null) await serve.stop('SIGKILL');
  await location?.remove();
});

const RECORDS = 200;
const FAULT_SEED = 42;

describe('plants add through plants serve --fault reset', () => {
  it('a bulk add through --fault reset=0.2 ends with exit 0 and every record stored once', async () => {
    location = await sqliteBackend.create();
    serve = await startServeProcess([
      '--port',
      '0',
      '--db',
      location.database,
      '--durability',
      'normal',
      '--token',
      TOKEN,
      '--fault',
      'reset=0.2',
      '--fault-seed',
      String(FAULT_SEED),
    ]);
    const records = Array.from({ length: RECORDS }, (_, index) => `{"id":${index + 1},"name":"plant ${index + 1}"}`);
    // One request at a time, so each record's attempts (its adds, and the read-back of a 409)
    // meet consecutive draws of the seeded faults: a record would be lost only to 11 resets in a
    // row (--retries 10), longer than any run of this seed's first 1000 draws. With random draws
    // and requests side by side it was a chance, however small; now the run is the same each time.
    expect(longestFaultRun(FAULT_SEED, 0.2, 1000)).toBeLessThan(11);
    const result = await runCli(['add', '--file', '-', '--retries', '10', '--concurrency', '1'], {
      env: { PLANTS_BASE_URL: serve.url, PLANTS_TOKEN: TOKEN },
      input: `${records.join('\n')}\n`,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(RECORDS);
    expect(await location.readPlants()).toEqual(
      Array.from({ length: RECORDS }, (_, index) => ({ id: BigInt(index + 1), name: `plant ${index + 1}`, tag: null })),
    );
  }, 180_000);
});
