import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot, runCli } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { type StoreLocation, sqliteBackend } from '../helpers/store-backends.js';

// The CLI's own retries proved against plants serve --fault: a real server that misbehaves on
// purpose, the built CLI as a child process, what ends up in the database file read directly.

const TOKEN = 'add-through-faults-token-0123456789';
const running: ServeProcess[] = [];
const locations: StoreLocation[] = [];
afterEach(async () => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null) await serve.stop('SIGKILL');
  for (const location of locations.splice(0)) await location.remove();
});

async function faultyStore(faults: readonly string[]): Promise<{ url: string; location: StoreLocation }> {
  const location = await sqliteBackend.create();
  locations.push(location);
  const serve = await startServeProcess([
    '--port',
    '0',
    '--db',
    location.database,
    '--durability',
    'normal',
    '--token',
    TOKEN,
    ...faults.flatMap((fault) => ['--fault', fault]),
  ]);
  running.push(serve);
  return { url: serve.url, location };
}

const env = (url: string) => ({ PLANTS_BASE_URL: url, PLANTS_TOKEN: TOKEN });

/** README's exit code for a failure, by the words of its table (as test/cli/failure-table.test.ts reads it). */
function readmeExitCode(phrase: string): number {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const rows = [...readme.slice(readme.indexOf('## Exit codes')).matchAll(/^\| (\d+) \| (.*) \|$/gm)];
  const found = rows.filter(([, , meaning]) => meaning?.includes(phrase));
  expect(found).toHaveLength(1);
  return Number(found[0]?.[1]);
}

const RECORDS = 200;
const records = Array.from(
  { length: RECORDS },
  (_, index) => `{"id":${9_007_199_254_740_993n + BigInt(index)},"name":"plant ${index}"}`,
);
const expected = records.map((_, index) => ({
  id: 9_007_199_254_740_993n + BigInt(index),
  name: `plant ${index}`,
  tag: null,
}));

describe('plants add through plants serve --fault', () => {
  it('a bulk add through --fault 503=0.3 ends with exit 0 and every record stored once', async () => {
    const { url, location } = await faultyStore(['503=0.3']);
    // A record fails only if every attempt meets a 503: 0.3^11 with --retries 10 (2e-6 a record);
    // with the default 3 it would be 0.3^4, about one record in 120.
    const result = await runCli(['add', '--file', '-', '--retries', '10'], {
      env: env(url),
      input: `${records.join('\n')}\n`,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: number; attempts?: number });
    expect(lines).toHaveLength(RECORDS);
    expect(lines.every((line) => line.status === 200)).toBe(true);
    // The faults were met, and retried.
    expect(lines.some((line) => (line.attempts ?? 1) > 1)).toBe(true);
    expect(await location.readPlants()).toEqual(expected);
  }, 180_000);

  it('a one-record add through --fault stall=1 gives up after --timeout: the exit code of a time-out, nothing stored', async () => {
    const { url, location } = await faultyStore(['stall=1']);
    const result = await runCli(['add', '--id', '1', '--name', 'Fern', '--timeout', '1'], { env: env(url) });
    expect(result.code, result.stderr).toBe(readmeExitCode('the server could not be reached'));
    // Sent, and no answer: it may have been added (issue 17, item 8), so it is not 'not sent'.
    expect(result.stderr).toBe(
      `plants: sent, no answer: plant 1 may or may not have been added (no answer from ${url} within 1 s)\n` +
        '  `plants get 1` shows whether it is in the store.\n  Raise the limit with --timeout SECONDS.\n',
    );
    expect(await location.readPlants()).toEqual([]);
  });
});
