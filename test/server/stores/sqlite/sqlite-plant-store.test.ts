import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../../../src/server/stores/sqlite/sqlite-driver.js';
import { type Migration, migrate, PLANT_MIGRATIONS } from '../../../../src/server/stores/sqlite/sqlite-migrations.js';
import { SqlitePlantStore } from '../../../../src/server/stores/sqlite/sqlite-plant-store.js';
import { DatabaseOpenError } from '../../../../src/server/stores/store-errors.js';
import { makeTempDir } from '../../../helpers/cli.js';

let dir: string;
let removeDir: () => void;
const open: SqlitePlantStore[] = [];

beforeEach(() => {
  ({ dir, remove: removeDir } = makeTempDir('plants-store-'));
});

afterEach(() => {
  for (const store of open.splice(0)) void store.close();
  removeDir();
});

function openStore(file = path.join(dir, 'plants.db'), durability: 'full' | 'normal' = 'full'): SqlitePlantStore {
  const store = SqlitePlantStore.open(file, { durability });
  open.push(store);
  return store;
}

function rawDb(file: string): Database {
  const db = new Database(file);
  db.defaultSafeIntegers(true);
  return db;
}

describe('SqlitePlantStore schema', () => {
  it('creates the plants table, WAL journal and user_version 1 on a new file', () => {
    const file = path.join(dir, 'plants.db');
    void openStore(file).close();
    const db = rawDb(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(1n);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const columns = db.prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(\'plants\')').all();
      expect(columns).toEqual([
        { name: 'id', type: 'INTEGER', notnull: 0n, pk: 1n },
        { name: 'name', type: 'TEXT', notnull: 1n, pk: 0n },
        { name: 'tag', type: 'TEXT', notnull: 0n, pk: 0n },
      ]);
    } finally {
      db.close();
    }
  });

  it('sets synchronous to FULL or NORMAL as durability says, on its own connection', () => {
    // synchronous is per connection: it can only be read on the store's own one.
    expect(openStore(path.join(dir, 'full.db'), 'full').journal).toEqual({ journalMode: 'wal', synchronous: 'full' });
    expect(openStore(path.join(dir, 'normal.db'), 'normal').journal).toEqual({
      journalMode: 'wal',
      synchronous: 'normal',
    });
  });

  it('runs only the missing migration steps, each recorded in user_version', () => {
    const file = path.join(dir, 'steps.db');
    const db = rawDb(file);
    const ran: number[] = [];
    const step = (version: number, table: string): Migration => ({
      version,
      description: `create ${table}`,
      up(d) {
        ran.push(version);
        d.exec(`CREATE TABLE ${table} (x)`);
      },
    });
    const steps: Migration[] = [step(1, 'a'), step(2, 'b'), step(3, 'c')];
    try {
      expect(migrate(db, steps.slice(0, 1))).toEqual({ from: 0, to: 1 });
      expect(migrate(db, steps)).toEqual({ from: 1, to: 3 });
      expect(migrate(db, steps)).toEqual({ from: 3, to: 3 });
      expect(ran).toEqual([1, 2, 3]);
      expect(db.pragma('user_version', { simple: true })).toBe(3n);
    } finally {
      db.close();
    }
  });

  it('rolls back a failing step together with its user_version', () => {
    const db = rawDb(path.join(dir, 'fail.db'));
    try {
      const steps: Migration[] = [
        { version: 1, description: 'ok', up: (d) => d.exec('CREATE TABLE a (x)') },
        {
          version: 2,
          description: 'fails half-way',
          up: (d) => {
            d.exec('CREATE TABLE b (x)');
            d.exec('THIS IS NOT SQL');
          },
        },
      ];
      expect(() => migrate(db, steps)).toThrow();
      expect(db.pragma('user_version', { simple: true })).toBe(1n);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'b'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('has exactly one migration step today, numbered from 1', () => {
    expect(PLANT_MIGRATIONS.map((step) => step.version)).toEqual([1]);
  });

  it('refuses a database from a newer plants without changing it', () => {
    const file = path.join(dir, 'newer.db');
    const db = rawDb(file);
    db.pragma(`user_version = ${PLANT_MIGRATIONS.length + 1}`);
    db.close();
    const before = readFileSync(file);
    expect(() => SqlitePlantStore.open(file, { durability: 'full' })).toThrow(
      /has schema version 2, newer than this plants knows \(1\)/,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("refuses another program's SQLite database without changing it", () => {
    const file = path.join(dir, 'other.db');
    const db = rawDb(file);
    db.exec('CREATE TABLE invoices (n INTEGER)');
    db.close();
    const before = readFileSync(file);
    let caught: unknown;
    try {
      SqlitePlantStore.open(file, { durability: 'full' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DatabaseOpenError);
    expect((caught as Error).message).toMatch(/some other program/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a file that is not SQLite and leaves its bytes as they were', () => {
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'my precious notes, not a database\n'.repeat(50));
    const before = readFileSync(file);
    expect(() => SqlitePlantStore.open(file, { durability: 'full' })).toThrow(
      `${file} is not a SQLite database; refusing to use it (the file was left unchanged)`,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

// What every store does is in ../plant-store.test.ts, run on each backend; here is what only SQLite does.
describe('SqlitePlantStore data', () => {
  it('commits adds made together in one transaction, refusing only the duplicate in it', async () => {
    const store = openStore();
    await store.add({ id: 1n, name: 'already there' });
    const before = store.commits;
    const results = await Promise.all([
      store.add({ id: 10n, name: 'a' }),
      store.add({ id: 11n, name: 'b' }),
      store.add({ id: 10n, name: 'a again' }),
      store.add({ id: 1n, name: 'clash with the table' }),
      store.add({ id: 12n, name: 'c' }),
    ]);
    expect(store.commits - before).toBe(1);
    expect(results.map((result) => result.added)).toEqual([true, true, false, false, true]);
    expect((await store.page(undefined, 1000)).map((plant) => [plant.id, plant.name])).toEqual([
      [1n, 'already there'],
      [10n, 'a'],
      [11n, 'b'],
      [12n, 'c'],
    ]);
  });

  it('splits a burst larger than maxBatchSize into several transactions, all committed', async () => {
    const file = path.join(dir, 'batch.db');
    const store = SqlitePlantStore.open(file, { durability: 'normal', maxBatchSize: 10 });
    open.push(store);
    const results = await Promise.all(
      Array.from({ length: 35 }, (_, i) => store.add({ id: BigInt(i), name: `n${i}` })),
    );
    expect(results.every((result) => result.added)).toBe(true);
    expect(store.commits).toBe(4);
    expect(await store.page(undefined, 1000)).toHaveLength(35);
  });

  it('resolves an add only after its transaction is committed and visible to other connections', async () => {
    const file = path.join(dir, 'visible.db');
    const store = openStore(file);
    const reader = rawDb(file);
    try {
      const pending = store.add({ id: 5n, name: 'fern' });
      // Not yet: the add waits in the queue for the next turn of the event loop.
      expect(reader.prepare('SELECT count(*) AS n FROM plants').get()).toEqual({ n: 0n });
      await pending;
      expect(reader.prepare('SELECT id, name FROM plants').all()).toEqual([{ id: 5n, name: 'fern' }]);
    } finally {
      reader.close();
    }
  });

  it('rejects every add of a batch whose transaction fails, storing none of them', async () => {
    const file = path.join(dir, 'busy.db');
    const store = SqlitePlantStore.open(file, { durability: 'full', busyTimeoutMs: 50 });
    open.push(store);
    const other = rawDb(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const results = await Promise.allSettled([store.add({ id: 1n, name: 'a' }), store.add({ id: 2n, name: 'b' })]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await store.page(undefined, 1000)).toEqual([]);
    expect(await store.add({ id: 1n, name: 'a' })).toMatchObject({ added: true });
  });

  it('works in memory', async () => {
    const store = openStore(':memory:');
    await store.add({ id: 9223372036854775807n, name: 'max' });
    expect(await store.get(9223372036854775807n)).toEqual({ id: 9223372036854775807n, name: 'max' });
    expect(await store.get(1n)).toBeUndefined();
  });
});
