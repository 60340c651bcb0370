import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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
    ]);
    const records = Array.from({ length: RECORDS }, (_, index) => `{"id":${index + 1},"name":"plant ${index + 1}"}`);
    // A record is lost to the faults only if every attempt is reset: 0.2^11 with --retries 10.
    const result = await runCli(['add', '--file', '-', '--retries', '10'], {
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
