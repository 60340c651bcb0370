import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSqliteDriver } from '../../../../src/server/stores/sqlite/node-sqlite-driver.js';
import { defaultSqliteDriverName } from '../../../../src/server/stores/sqlite/open-sqlite.js';
import type { SqliteDriverName } from '../../../../src/server/stores/sqlite/sqlite-driver-api.js';
import { SqlitePlantStore } from '../../../../src/server/stores/sqlite/sqlite-plant-store.js';
import { DatabaseOpenError } from '../../../../src/server/stores/store-errors.js';
import { holdSqliteLock } from '../../../helpers/sqlite-lock.js';
import { nodeSqliteRuns } from '../../../helpers/store-backends.js';
import { readStoredPlants } from '../../../helpers/store-server.js';

const folders: string[] = [];
function newFile(name = 'plants.db'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plants-node-sqlite-'));
  folders.push(dir);
  return path.join(dir, name);
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(file: string, driver: SqliteDriverName): SqlitePlantStore {
  return SqlitePlantStore.open(file, { durability: 'full', driver });
}

it('outside the single executable the store runs on better-sqlite3, as the npm package always did', () => {
  expect(defaultSqliteDriverName()).toBe('better-sqlite3');
  const store = SqlitePlantStore.open(':memory:', { durability: 'full' });
  expect(store.driver).toBe('better-sqlite3');
  void store.close();
});

it('runs the node:sqlite driver from Node 24 on, by the version alone', () => {
  expect(['22.19.0', '22.23.3', '24.0.0', '26.1.0'].map((version) => nodeSqliteRuns(version))).toEqual([
    false,
    false,
    true,
    true,
  ]);
});

// Node 22's node:sqlite cuts text read back at U+0000: the driver says so.
it.runIf(!nodeSqliteRuns())('refuses a node:sqlite that would lose text, in one sentence', () => {
  expect(() => nodeSqliteDriver()).toThrow(
    /^node:sqlite of this Node \(v\d+\.\d+\.\d+\) reads text only up to its first U\+0000: .* needs Node 24 or newer$/,
  );
});

// Run on every Node from 24 on (by its version: never skipped for a failure), refused on 22 (above).
describe.runIf(nodeSqliteRuns())('the node:sqlite driver', () => {
  const extremes = [
    { id: 9223372036854775807n, name: 'max', tag: '' },
    { id: -9223372036854775808n, name: 'min' },
    { id: 9007199254740993n, name: 'a\u0000b', tag: '🌿' },
  ];

  it('opens a store better-sqlite3 wrote, and better-sqlite3 opens what it wrote back, ids exact', async () => {
    const file = newFile();
    const npm = open(file, 'better-sqlite3');
    for (const plant of extremes) expect((await npm.add(plant)).added).toBe(true);
    await npm.close();

    const binary = open(file, 'node:sqlite');
    expect(binary.driver).toBe('node:sqlite');
    expect(binary.commitThread).toBe('main');
    expect(await binary.page(undefined, 10)).toEqual([extremes[1], extremes[2], extremes[0]]);
    expect(await binary.add({ id: 9223372036854775807n, name: 'taken' })).toEqual({
      added: false,
      id: 9223372036854775807n,
    });
    expect(await binary.add({ id: 0n, name: 'from node:sqlite', tag: 'herb' })).toEqual({
      added: true,
      plant: { id: 0n, name: 'from node:sqlite', tag: 'herb' },
    });
    expect(await binary.remove(9007199254740993n)).toBe(true);
    expect(binary.journal).toEqual({ journalMode: 'wal', synchronous: 'full' });
    await binary.close();

    expect(readStoredPlants(file)).toEqual([
      { id: -9223372036854775808n, name: 'min', tag: null },
      { id: 0n, name: 'from node:sqlite', tag: 'herb' },
      { id: 9223372036854775807n, name: 'max', tag: '' },
    ]);
    const back = open(file, 'better-sqlite3');
    expect(await back.get(0n)).toEqual({ id: 0n, name: 'from node:sqlite', tag: 'herb' });
    await back.close();
  });

  it('commits on its worker thread too, with node:sqlite there as well', async () => {
    const store = open(newFile(), 'node:sqlite');
    const deadline = Date.now() + 10_000;
    while (store.commitThread !== 'worker' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(store.commitThread).toBe('worker');
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.add({ id: BigInt(i % 100), name: `n${i}` })),
    );
    expect(results.filter((result) => result.added)).toHaveLength(100);
    await store.close();
  });

  it('refuses a file that is not SQLite, untouched, as better-sqlite3 does', () => {
    const file = newFile('notes.db');
    writeFileSync(file, 'not a database, but long enough to have a header of sorts. '.repeat(20));
    expect(() => open(file, 'node:sqlite')).toThrow(
      new DatabaseOpenError(`${file} is not a SQLite database; refusing to use it (the file was left unchanged)`, {
        database: file,
      }),
    );
  });

  it('says a store another process holds is locked (SQLITE_BUSY, within the busy timeout)', async () => {
    const file = newFile();
    const lock = await holdSqliteLock(file, 'BEGIN EXCLUSIVE');
    try {
      expect(() =>
        SqlitePlantStore.open(file, { durability: 'full', driver: 'node:sqlite', busyTimeoutMs: 50 }),
      ).toThrow(`database ${file} is locked by another process`);
    } finally {
      await lock.release();
    }
  });
});
