import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { postgresAdminUrl, postgresBackend, type StoreLocation } from '../helpers/store-backends.js';

// plants serve on PostgreSQL, as a user starts it: the flag, the environment, the start-up errors.
const admin = postgresAdminUrl();
const TOKEN = 'serve-database-token-0123456789';

describe.skipIf(admin === undefined)('plants serve --database', () => {
  let location: StoreLocation;
  let url: URL;
  let password: string;

  beforeAll(async () => {
    location = await postgresBackend.create();
    url = new URL(location.database);
    password = decodeURIComponent(url.password);
  });
  afterAll(async () => {
    await location?.remove();
  });

  /** The URL with some parts changed. */
  function variant(change: (copy: URL) => void): string {
    const copy = new URL(url);
    change(copy);
    return copy.toString();
  }

  it('keeps plants in PostgreSQL; the banner names the database without its password', async () => {
    const serve = await startServeProcess(['--port', '0', '--database', location.database, '--token', TOKEN]);
    try {
      await serve.waitForStderr('listening');
      // Durability is a SQLite setting: PostgreSQL commits as its server is set up to, so the
      // banner names none.
      expect(serve.stderr).toContain(
        `store: ${variant((copy) => {
          copy.password = '***';
        })}\n`,
      );
      expect(serve.stderr).not.toContain('durability');
      const add = await runCli(['add', '--id', '9223372036854775807', '--name', 'max', '--base-url', serve.url], {
        env: { PLANTS_TOKEN: TOKEN },
      });
      expect(add.code).toBe(0);
      expect(await location.readPlants()).toEqual([{ id: 9223372036854775807n, name: 'max', tag: null }]);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    expect(serve.stdout + serve.stderr).not.toContain(password);
  });

  it.each([
    ['PLANTS_DATABASE_URL', (database: string) => ({ PLANTS_DATABASE_URL: database })],
    ['DATABASE_URL', (database: string) => ({ DATABASE_URL: database })],
    [
      'PGPASSWORD, PGUSER, PGDATABASE with a URL that leaves them out',
      (database: string) => {
        const parsed = new URL(database);
        return {
          PLANTS_DATABASE_URL: `postgres://${parsed.host}`,
          PGUSER: parsed.username,
          PGPASSWORD: decodeURIComponent(parsed.password),
          PGDATABASE: parsed.pathname.slice(1),
          PGSSLMODE: 'disable',
        };
      },
    ],
  ])('takes the database from %s', async (_name, env) => {
    const serve = await startServeProcess(['--port', '0', '--token', TOKEN], env(location.database));
    try {
      const add = await runCli(['add', '--id', '-5', '--name', 'env', '--base-url', serve.url], {
        env: { PLANTS_TOKEN: TOKEN },
      });
      expect(add.code).toBe(0);
      const get = await runCli(['get', '-5', '--base-url', serve.url, '--json'], { env: { PLANTS_TOKEN: TOKEN } });
      expect(get.stdout).toContain('"id":-5');
      const del = await runCli(['delete', '-5', '--base-url', serve.url], { env: { PLANTS_TOKEN: TOKEN } });
      expect(del.code).toBe(0);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it.each([
    [
      'a wrong password',
      2,
      () =>
        variant((copy) => {
          copy.password = 'wrong-pass-7777';
        }),
      () => `password authentication failed for user ${url.username}`,
    ],
    [
      'a database that does not exist',
      2,
      () =>
        variant((copy) => {
          copy.pathname = '/missing_db';
        }),
      () => 'the database does not exist',
    ],
    ['a malformed URL', 2, () => `postgres://${url.username}:wrong-pass-7777@[::1/x`, () => 'not a valid URL'],
    ['a scheme it does not serve', 2, () => 'mysql://u:wrong-pass-7777@h/db', () => 'not mysql:'],
  ])('refuses %s with exit %s and one line, never the password', async (_what, code, database, message) => {
    const result = await runCli(['serve', '--port', '0', '--token', TOKEN, '--database', database()]);
    expect(result.code).toBe(code);
    const [first] = result.stderr.split('\n');
    expect(first).toContain(message());
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout + result.stderr).not.toContain('wrong-pass-7777');
    expect(result.stdout + result.stderr).not.toContain(password);
  });

  it('names host, port and database when nothing listens there (exit 3)', async () => {
    const port = await freePort();
    const database = variant((copy) => {
      copy.port = String(port);
    });
    const result = await runCli(['serve', '--port', '0', '--token', TOKEN, '--database', database]);
    expect(result.code).toBe(3);
    expect(result.stderr.split('\n')[0]).toBe(
      `plants: cannot use PostgreSQL at 127.0.0.1:${port}, database ${url.pathname.slice(1)}: connection refused (is PostgreSQL running there?)`,
    );
    expect(result.stdout + result.stderr).not.toContain(password);
  });
});
