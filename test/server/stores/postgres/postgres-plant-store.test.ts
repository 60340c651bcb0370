import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openPlantStore } from '../../../../src/server/stores/open-store.js';
import type { PlantStore } from '../../../../src/server/stores/plant-store.js';
import { resolvePostgresConnection } from '../../../../src/server/stores/postgres/connection-settings.js';
import { PostgresPlantStore } from '../../../../src/server/stores/postgres/postgres-plant-store.js';
import {
  DatabaseConnectError,
  DatabaseOpenError,
  StoreUnavailableError,
} from '../../../../src/server/stores/store-errors.js';
import { freePort } from '../../../helpers/ports.js';
import { startPostgresProxy } from '../../../helpers/postgres.js';
import { postgresAdminUrl, postgresBackend, runSql, type StoreLocation } from '../../../helpers/store-backends.js';

// What only the PostgreSQL store does; what every store does is in ../plant-store.test.ts.
const admin = postgresAdminUrl();
const locations: StoreLocation[] = [];
const open: PlantStore[] = [];

async function freshDatabase(): Promise<StoreLocation> {
  const location = await postgresBackend.create();
  locations.push(location);
  return location;
}

async function openStore(database: string): Promise<PlantStore> {
  const store = await openPlantStore({ database, durability: 'full' });
  open.push(store);
  return store;
}

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const location of locations.splice(0)) await location.remove();
});

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe.skipIf(admin === undefined)('PostgresPlantStore', () => {
  it('creates the plants table with a bigint id and UTF-8 bytes for name and tag, and records schema version 1 once', async () => {
    const { database } = await freshDatabase();
    await openStore(database);
    const columns = await runSql(
      database,
      "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'plants' ORDER BY ordinal_position",
    );
    expect(columns).toEqual([
      { column_name: 'id', data_type: 'bigint', is_nullable: 'NO' },
      { column_name: 'name', data_type: 'bytea', is_nullable: 'NO' },
      { column_name: 'tag', data_type: 'bytea', is_nullable: 'YES' },
    ]);
    expect(await runSql(database, 'SELECT version, description FROM plants_schema')).toEqual([
      { version: 1, description: 'create the plants table' },
    ]);
  });

  it('migrates safely when three instances start at once on an empty database, many times over', async () => {
    for (let round = 0; round < 5; round++) {
      const { database } = await freshDatabase();
      const stores = await Promise.all([openStore(database), openStore(database), openStore(database)]);
      expect(stores).toHaveLength(3);
      expect(await runSql(database, 'SELECT version FROM plants_schema')).toEqual([{ version: 1 }]);
      for (const store of open.splice(0)) await store.close();
      for (const location of locations.splice(0)) await location.remove();
    }
  });

  it('refuses a database whose schema comes from a newer plants (exit 2)', async () => {
    const { database } = await freshDatabase();
    await (await openStore(database)).close();
    await runSql(database, "INSERT INTO plants_schema (version, description) VALUES (99, 'from the future')");
    const error = await rejection(openStore(database));
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toMatch(/schema version 99, newer than this plants knows \(1\)/);
  });

  it('shares round trips: a burst of adds goes in a few statements, each add answered on its own', async () => {
    const { database } = await freshDatabase();
    const store = (await openStore(database)) as PostgresPlantStore;
    const ids = Array.from({ length: 2000 }, (_, i) => BigInt(i) * 4611686018427387n);
    const results = await Promise.all(ids.map((id) => store.add({ id, name: `p${id}` })));
    expect(results.every((result) => result.added)).toBe(true);
    // One statement per add would make 2000; batches of up to 1000, two on the wire, make a handful.
    expect(store.commits).toBeLessThanOrEqual(10);
    const again = await Promise.all(ids.slice(0, 10).map((id) => store.add({ id, name: 'again' })));
    expect(again.every((result) => !result.added)).toBe(true);
  });

  it('refuses as not sent (503, Retry-After) an add whose batch is still waiting for a connection when it stalls', async () => {
    const { database } = await freshDatabase();
    const url = new URL(database);
    const proxy = await startPostgresProxy(Number(url.port));
    url.port = String(proxy.port);
    let idleConnectionBroke: () => void = () => undefined;
    const broke = new Promise<void>((resolve) => {
      idleConnectionBroke = resolve;
    });
    try {
      const store = await PostgresPlantStore.open({
        connection: resolvePostgresConnection(url.toString()),
        stallMs: 300,
        onBackgroundError: () => idleConnectionBroke(),
      });
      open.push(store);
      expect(await store.add({ id: 1n, name: 'before' })).toEqual({ added: true, plant: { id: 1n, name: 'before' } });
      // The pool's one connection ends; a new one is taken in by the network and never answered.
      proxy.cut();
      proxy.reset();
      await broke;
      const error = await rejection(store.add({ id: 2n, name: 'never sent' }));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect([error.message, (error as StoreUnavailableError).retryAfterSeconds]).toEqual([
        'the database cannot be reached just now; try again shortly',
        1,
      ]);
    } finally {
      await proxy.close();
    }
  });

  describe('start-up failures: one line naming host, port and database, never the password', () => {
    const base = new URL(admin ?? 'postgres://x@127.0.0.1:1/postgres');
    const password = decodeURIComponent(base.password);

    it('a wrong password: refused, not unreachable', async () => {
      const url = new URL(base);
      url.password = 'not-the-password-0451';
      url.pathname = '/postgres';
      const error = await rejection(openStore(url.toString()));
      expect(error).toBeInstanceOf(DatabaseConnectError);
      expect((error as DatabaseConnectError).unreachable).toBe(false);
      expect(error.message).toBe(
        `cannot use PostgreSQL at 127.0.0.1:${base.port}, database postgres: password authentication failed for user ${base.username}`,
      );
      expect(error.message).not.toContain('0451');
    });

    it('a database that does not exist: refused, not unreachable', async () => {
      const url = new URL(base);
      url.pathname = '/no_such_database';
      const error = await rejection(openStore(url.toString()));
      expect((error as DatabaseConnectError).unreachable).toBe(false);
      expect(error.message).toBe(
        `cannot use PostgreSQL at 127.0.0.1:${base.port}, database no_such_database: the database does not exist`,
      );
      expect(error.message).not.toContain(password);
    });

    it('a server there that is not PostgreSQL (it hangs up on the start-up message): unreachable, saying so', async () => {
      // An HTTP server, say: it answers the start-up packet with 400 and closes.
      const other = createServer();
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        const url = new URL(base);
        url.port = String((other.address() as AddressInfo).port);
        const error = await rejection(openStore(url.toString()));
        expect((error as DatabaseConnectError).unreachable).toBe(true);
        expect(error.message).toBe(
          `cannot use PostgreSQL at 127.0.0.1:${url.port}, database postgres: the server there closed the connection before answering (is it PostgreSQL?)`,
        );
        expect(error.message).not.toContain(password);
      } finally {
        other.closeAllConnections();
        await new Promise((resolve) => other.close(resolve));
      }
    });

    it('nothing listening: unreachable', async () => {
      const url = new URL(base);
      url.port = String(await freePort());
      const error = await rejection(openStore(url.toString()));
      expect((error as DatabaseConnectError).unreachable).toBe(true);
      expect(error.message).toBe(
        `cannot use PostgreSQL at 127.0.0.1:${url.port}, database postgres: connection refused (is PostgreSQL running there?)`,
      );
      expect(error.message).not.toContain(password);
    });
  });
});
