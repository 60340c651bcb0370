import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { SqliteDriverName } from '../../src/server/stores/sqlite/sqlite-driver-api.js';

/** A plant as a table row: what the store really holds. */
export interface StoredRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/** A new, empty place for a store: a SQLite file in a temporary folder, or a PostgreSQL database. */
export interface StoreLocation {
  /** What `plants serve --database` / startPlantServer's `database` takes. */
  database: string;
  /** The plants table, read over a connection of its own, by id. */
  readPlants(): Promise<StoredRow[]>;
  /** Forgets the place (the folder, or the database). */
  remove(): Promise<void>;
}

export interface StoreBackend {
  name: 'sqlite' | 'postgres' | 'sqlite on node:sqlite';
  /** For a SQLite backend: the driver its stores are opened with (openPlantStore's sqliteDriver). */
  sqliteDriver?: SqliteDriverName;
  create(): Promise<StoreLocation>;
}

export const sqliteBackend: StoreBackend = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(path.join(tmpdir(), 'plants-store-'));
    const database = path.join(dir, 'plants.db');
    return {
      database,
      async readPlants() {
        const { readStoredPlants } = await import('./store-server.js');
        return readStoredPlants(database);
      },
      async remove() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * A SQLite file opened with Node's built-in node:sqlite, the single executable's driver. Its
 * plants are read back with node:sqlite too: two copies of SQLite in one process must never
 * have one file open at once (each keeps its own table of the process's POSIX locks, so one
 * closing the file drops the other's locks, and may checkpoint and delete a WAL still in use).
 * Across processes, or one after the other, the file is one format for both (node-sqlite-driver.test.ts).
 */
export const nodeSqliteBackend: StoreBackend = {
  name: 'sqlite on node:sqlite',
  sqliteDriver: 'node:sqlite',
  async create() {
    const location = await sqliteBackend.create();
    return { ...location, readPlants: async () => readPlantsWithNodeSqlite(location.database) };
  },
};

/** The plants table of a SQLite file, read over a node:sqlite connection of its own. */
export function readPlantsWithNodeSqlite(file: string): StoredRow[] {
  const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as unknown as {
    DatabaseSync: new (
      file: string,
      options: { readOnly: boolean },
    ) => {
      prepare(sql: string): { setReadBigInts(on: boolean): void; all(): unknown[] };
      close(): void;
    };
  };
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const select = db.prepare('SELECT id, name, tag FROM plants ORDER BY id');
    select.setReadBigInts(true);
    return select.all().map((row) => ({ ...(row as StoredRow) }));
  } finally {
    db.close();
  }
}

/**
 * Whether plants' node:sqlite driver runs on this Node: 24 and newer. Node 22's reads text only
 * up to its first U+0000, and the driver refuses it
 * (node-sqlite-driver.test.ts proves the refusal there). Decided by the version alone, so that a
 * node:sqlite that fails on a Node where it should run fails the tests rather than skipping them.
 */
export function nodeSqliteRuns(version = process.versions.node): boolean {
  return Number(version.split('.')[0]) >= 24;
}

/** The shared test cluster's admin URL, or undefined when the PostgreSQL tests skip (see postgres-global-setup.ts). */
export function postgresAdminUrl(): string | undefined {
  const url = inject('postgresAdminUrl');
  return url === '' ? undefined : url;
}

/**
 * Databases of this test file, emptied and free for another store. CREATE DATABASE takes about
 * a second (a checkpoint), so a file makes one per store open at once rather than one per store:
 * remove() drops the store's tables and puts the database back here.
 */
const spareDatabases: StoreLocation[] = [];

export const postgresBackend: StoreBackend = {
  name: 'postgres',
  async create() {
    const admin = postgresAdminUrl();
    if (admin === undefined) throw new Error('no PostgreSQL for this run');
    const location = spareDatabases.pop() ?? (await createPostgresDatabase(admin));
    let removed = false;
    return {
      ...location,
      async remove() {
        if (removed) return;
        removed = true;
        await runSql(location.database, 'DROP TABLE IF EXISTS plants, plants_schema');
        spareDatabases.push(location);
      },
    };
  },
};

/** A new database in the cluster `adminUrl` reaches (one per test file, cheaper than a cluster). */
export async function createPostgresDatabase(adminUrl: string): Promise<StoreLocation> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await runSql(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = url.toString();
  return {
    database,
    readPlants: () => readPostgresPlants(database),
    async remove() {
      await runSql(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    },
  };
}

/**
 * The plants table of a PostgreSQL store: ids read as text and made BigInt here (never a JS
 * number), name and tag as the UTF-8 bytes the table holds (bytea), decoded here.
 */
export async function readPostgresPlants(databaseUrl: string): Promise<StoredRow[]> {
  const rows = await runSql<{ id: string; name: Buffer; tag: Buffer | null }>(
    databaseUrl,
    'SELECT id::text AS id, name, tag FROM plants ORDER BY plants.id',
  );
  return rows.map((row) => ({
    id: BigInt(row.id),
    name: row.name.toString('utf8'),
    tag: row.tag?.toString('utf8') ?? null,
  }));
}

/** One statement over a connection of its own. */
export async function runSql<Row extends pg.QueryResultRow>(
  databaseUrl: string,
  sql: string,
  values?: unknown[],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** The stores every parameterised suite runs on: SQLite always, PostgreSQL when there is one. */
export function storeBackends(): StoreBackend[] {
  return postgresAdminUrl() === undefined ? [sqliteBackend] : [sqliteBackend, postgresBackend];
}
