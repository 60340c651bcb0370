import { afterEach, describe, expect, it } from 'vitest';
import { resolvePostgresConnection } from '../../../../src/server/stores/postgres/connection-settings.js';
import {
  isLoss,
  NoPrimaryAtStartError,
  NoPrimaryError,
  PrimaryPool,
} from '../../../../src/server/stores/postgres/primary-pool.js';
import { freePort } from '../../../helpers/ports.js';
import { postgresAdminUrl, postgresBackend, runSql, type StoreLocation } from '../../../helpers/store-backends.js';

const admin = postgresAdminUrl();
const locations: StoreLocation[] = [];
const pools: PrimaryPool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  for (const location of locations.splice(0)) await location.remove();
});

async function openPool(url: string): Promise<PrimaryPool> {
  const pool = await PrimaryPool.open({ connection: resolvePostgresConnection(url) });
  pools.push(pool);
  return pool;
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

/** An error as pg gives it, with its SQLSTATE. */
function sqlError(code: string): Error {
  return Object.assign(new Error(`sqlstate ${code}`), { code });
}

describe('isLoss: which errors mean the server written to may be gone or demoted', () => {
  it.each([
    ['25006 read-only transaction (a demoted primary)', sqlError('25006'), true],
    ['57P01 admin shutdown', sqlError('57P01'), true],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), true],
    ["pg's code-less cut", new Error('Connection terminated unexpectedly'), true],
    ['no primary found', new NoPrimaryError('none'), true],
    ['a retired pool', new Error('Cannot use a pool after calling end on the pool'), true],
    ['40001 serialization failure (the server is there)', sqlError('40001'), false],
    ['23505 unique violation', sqlError('23505'), false],
    ['a plain bug', new TypeError('x is undefined'), false],
  ])('%s: %s', (_name, error, expected) => {
    expect(isLoss(error)).toBe(expected);
  });
});

describe.skipIf(admin === undefined)('PrimaryPool on a real PostgreSQL', () => {
  it('chooses the one server that takes writes of a list whose other host is down', async () => {
    const location = await postgresBackend.create();
    locations.push(location);
    const url = new URL(location.database);
    const down = await freePort();
    const listed = location.database.replace(`@${url.host}`, `@127.0.0.1:${down},${url.host}`);
    const pool = await openPool(listed);
    expect(pool.current).toEqual({ host: url.hostname, port: Number(url.port) });
    const lease = await pool.connect();
    expect((await lease.client.query('SELECT pg_is_in_recovery() AS r')).rows).toEqual([{ r: false }]);
    lease.release();
  });

  it('refuses at start a server that is read-only, naming it', async () => {
    const location = await postgresBackend.create();
    locations.push(location);
    const name = new URL(location.database).pathname.slice(1);
    await runSql(location.database, `ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    const error = await PrimaryPool.open({
      connection: resolvePostgresConnection(withQuery(location.database, 'target_session_attrs=read-write')),
    })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      .finally(() => runSql(admin as string, `ALTER DATABASE ${name} RESET default_transaction_read_only`));
    expect(error).toBeInstanceOf(NoPrimaryAtStartError);
    expect((error as Error).message).toMatch(/^no host takes writes: 127\.0\.0\.1:\d+ is read-only$/);
  });

  it('drops a server that answers 25006, answers NoPrimaryError at once meanwhile, and takes it again once it qualifies', async () => {
    const location = await postgresBackend.create();
    locations.push(location);
    const pool = await openPool(withQuery(location.database, 'target_session_attrs=read-write'));
    const lease = await pool.connect();
    // This session alone turns read-only: its write fails as a demoted primary's would.
    await lease.client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    const failure = await lease.client.query('CREATE TABLE t (x int)').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as { code?: string }).code).toBe('25006');
    lease.release(failure);
    expect(pool.current).toBeUndefined();
    const refused = await pool.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NoPrimaryError);
    // The search finds the server (every other session of it takes writes) and a new pool is made.
    const deadline = Date.now() + 10_000;
    while (pool.current === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(pool.current).toBeDefined();
    const again = await pool.connect();
    expect((await again.client.query("SELECT current_setting('transaction_read_only') AS ro")).rows).toEqual([
      { ro: 'off' },
    ]);
    again.release();
  });
});
