import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type PostgresProxy, startPostgresProxy } from '../helpers/postgres.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { createPostgresDatabase, postgresAdminUrl, type StoreLocation } from '../helpers/store-backends.js';
import { postPlant } from '../server/http-client.js';

// Issue 42: a change PostgreSQL committed while serve never heard of it. A TCP proxy between
// serve and PostgreSQL forwards the statement, drops PostgreSQL's answer (read up to its
// ReadyForQuery: the row is committed) and cuts every connection, then refuses connections for
// longer than the CLI's retries. serve cannot know; the CLI must never call such a record not
// stored: it is settled by reading it back, and where that cannot be done it is unknown (exit 3).

const admin = postgresAdminUrl();
const TOKEN = `outcome-${randomBytes(9).toString('base64url')}`;
/** Longer than every try the CLI makes: `--retries 3` under a Retry-After of 1 s, and the read-back's. */
const AWAY_MS = 20_000;

const opened: Array<{ serve: ServeProcess; proxy: PostgresProxy; location: StoreLocation }> = [];
afterEach(async () => {
  for (const { serve, proxy, location } of opened.splice(0)) {
    await serve.stop();
    await proxy.close();
    await location.remove();
  }
});

/** `plants serve --database` through the proxy, on a database of its own. */
async function proxiedStore(): Promise<{ url: string; proxy: PostgresProxy; location: StoreLocation }> {
  const location = await createPostgresDatabase(admin as string);
  const database = new URL(location.database);
  const proxy = await startPostgresProxy(Number(database.port));
  database.port = String(proxy.port);
  const serve = await startServeProcess([
    '--port',
    '0',
    '--quiet',
    '--token',
    TOKEN,
    '--database',
    database.toString(),
  ]);
  opened.push({ serve, proxy, location });
  return { url: serve.url, proxy, location };
}

const cli = (url: string, args: string[], input?: string) =>
  runCli(args, { env: { PLANTS_BASE_URL: url, PLANTS_TOKEN: TOKEN }, input, timeoutMs: 60_000 });

describe.skipIf(admin === undefined)(
  'a change PostgreSQL committed but serve never heard of',
  { timeout: 60_000 },
  () => {
    it('plants add --id: the plant is stored, and the add is added or unknown (exit 3), never rejected', async () => {
      const { url, proxy, location } = await proxiedStore();
      const cutOff = proxy.dropAnswerTo('INSERT INTO plants', AWAY_MS);
      const result = await cli(url, ['add', '--id', '3701', '--name', 'Fern', '--tag', 'herb', '--retries', '3']);
      await cutOff;
      expect(await location.readPlants()).toEqual([{ id: 3701n, name: 'Fern', tag: 'herb' }]);
      expect([0, 3], result.stderr).toContain(result.code);
      if (result.code === 3) {
        expect(result.stderr).toMatch(
          /^plants: sent, (no answer|outcome unknown): plant 3701 may or may not have been added \(/,
        );
        expect(result.stderr).toContain('`plants get 3701` shows whether it is in the store.');
      } else {
        expect(result.stdout).toContain('3701');
      }
    });

    // A JSON array is a bulk add whatever its length (one NewPlant alone would be added as --id is).
    it('plants add --file - of an array of one record: added or unknown, never rejected', async () => {
      const { url, proxy, location } = await proxiedStore();
      const cutOff = proxy.dropAnswerTo('INSERT INTO plants', AWAY_MS);
      const result = await cli(url, ['add', '--file', '-', '--retries', '3'], '[{"id":3702,"name":"Moss"}]\n');
      await cutOff;
      expect(await location.readPlants()).toEqual([{ id: 3702n, name: 'Moss', tag: null }]);
      const line = JSON.parse(result.stdout.trim()) as { line: number; sent: boolean; outcome: string };
      expect([line.line, line.sent]).toEqual([1, true]);
      expect(['added', 'unknown'], result.stdout).toContain(line.outcome);
      expect(result.code, result.stderr).toBe(line.outcome === 'added' ? 0 : 3);
    });

    it('plants delete: the plant is gone, and the delete is done or unknown (exit 3), never refused', async () => {
      const { url, proxy, location } = await proxiedStore();
      expect((await postPlant(url, TOKEN, '{"id":3703,"name":"Ivy"}')).status).toBe(200);
      const cutOff = proxy.dropAnswerTo('DELETE FROM plants', AWAY_MS);
      const result = await cli(url, ['delete', '3703', '--yes']);
      await cutOff;
      expect(await location.readPlants()).toEqual([]);
      expect([0, 3], result.stderr).toContain(result.code);
      if (result.code === 3) {
        expect(result.stderr).toMatch(
          /^plants: sent, (no answer|outcome unknown): plant 3703 may or may not have been deleted \(/,
        );
        expect(result.stderr).toContain('`plants get 3703` shows whether it is in the store.');
      }
    });
  },
);
