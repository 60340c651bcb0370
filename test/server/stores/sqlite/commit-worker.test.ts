import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../../../src/server/stores/sqlite/sqlite-driver.js';
import { SqlitePlantStore } from '../../../../src/server/stores/sqlite/sqlite-plant-store.js';
import { makeTempDir } from '../../../helpers/cli.js';

/**
 * A `full` store in a file commits on a worker thread, so that the fsync of each commit does not
 * stop the event loop. These check what that must not change (everything acknowledged is stored;
 * close is still synchronous and leaves a clean file) and what it is for (the loop goes on while
 * a commit waits).
 */

let dir: string;
let removeDir: () => void;
const open: SqlitePlantStore[] = [];

beforeEach(() => {
  ({ dir, remove: removeDir } = makeTempDir('plants-worker-'));
});

afterEach(() => {
  for (const store of open.splice(0)) void store.close();
  removeDir();
});

async function workerStore(
  file: string,
  options: { busyTimeoutMs?: number; durability?: 'full' | 'normal'; commitThread?: 'main' | 'worker' } = {},
): Promise<SqlitePlantStore> {
  const store = SqlitePlantStore.open(file, { durability: 'full', ...options });
  open.push(store);
  const deadline = Date.now() + 10_000;
  while (store.commitThread !== 'worker') {
    if (Date.now() > deadline) throw new Error('the commit worker did not start');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return store;
}

function rows(file: string): Array<{ id: bigint; name: string }> {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    return db.prepare<[], { id: bigint; name: string }>('SELECT id, name FROM plants ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('commits on a worker thread', () => {
  it('is where a full store in a file commits (a normal one when told so); one in memory, on the main thread', async () => {
    const full = await workerStore(path.join(dir, 'full.db'));
    const normal = await workerStore(path.join(dir, 'normal.db'), { durability: 'normal', commitThread: 'worker' });
    expect([full.commitThread, normal.commitThread]).toEqual(['worker', 'worker']);
    // The store's own connection reports the level; the worker's connection is set the same way.
    expect([full.journal.synchronous, normal.journal.synchronous]).toEqual(['full', 'normal']);
    const memory = SqlitePlantStore.open(':memory:', { durability: 'full' });
    const chosen = SqlitePlantStore.open(path.join(dir, 'main.db'), { durability: 'full', commitThread: 'main' });
    const normalHere = SqlitePlantStore.open(path.join(dir, 'normal-main.db'), { durability: 'normal' });
    open.push(memory, chosen, normalHere);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([memory.commitThread, chosen.commitThread, normalHere.commitThread]).toEqual(['main', 'main', 'main']);
    expect(await chosen.add({ id: 1n, name: 'here' })).toMatchObject({ added: true });
  });

  it('keeps the event loop going while a commit waits, and resolves once it is committed', async () => {
    const file = path.join(dir, 'plants.db');
    // A busy timeout far beyond the test's: a commit that waited it out, rather than taking the
    // lock once it is free, shows as a time-out, not as a matter of how loaded the machine is.
    const store = await workerStore(file, { busyTimeoutMs: 120_000 });
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const pending = store.add({ id: 1n, name: 'waits for the lock' });
    // On the main thread, the commit would wait for the lock (5 s) without letting this timer run.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rows(file)).toEqual([]);
    holder.exec('ROLLBACK');
    holder.close();
    await expect(pending).resolves.toEqual({ added: true, plant: { id: 1n, name: 'waits for the lock' } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(rows(file)).toEqual([{ id: 1n, name: 'waits for the lock' }]);
  });

  it('commits what arrives during a commit in the next one, in order, refusing a duplicate across them', async () => {
    const file = path.join(dir, 'plants.db');
    const store = await workerStore(file);
    const first = Array.from({ length: 50 }, (_, i) => store.add({ id: BigInt(i), name: `first ${i}` }));
    // The first batch is on the worker now; these gather meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    const second = [store.add({ id: 1000n, name: 'later' }), store.add({ id: 7n, name: 'a duplicate of first 7' })];
    const results = await Promise.all([...first, ...second]);
    expect(results.slice(0, 51).every((result) => result.added)).toBe(true);
    expect(results[51]).toEqual({ added: false, id: 7n });
    expect(store.commits).toBe(2);
    expect(rows(file)).toHaveLength(51);
    expect(await store.get(7n)).toEqual({ id: 7n, name: 'first 7' });
  });

  it('rejects every add of a batch whose transaction fails on the worker, and recovers', async () => {
    const file = path.join(dir, 'plants.db');
    const store = await workerStore(file, { busyTimeoutMs: 50 });
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    let results: PromiseSettledResult<unknown>[];
    try {
      results = await Promise.allSettled([store.add({ id: 1n, name: 'a' }), store.add({ id: 2n, name: 'b' })]);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(rows(file)).toEqual([]);
    expect(await store.add({ id: 1n, name: 'a' })).toMatchObject({ added: true });
  });

  it('at close, finishes the batch in flight and commits the queue, synchronously, and leaves no WAL', async () => {
    const file = path.join(dir, 'plants.db');
    const store = await workerStore(file);
    const inFlight = Array.from({ length: 500 }, (_, i) => store.add({ id: BigInt(i), name: `p${i}` }));
    await new Promise((resolve) => setImmediate(resolve));
    const queued = store.add({ id: 500n, name: 'queued' });
    void store.close();
    // Settled by close itself: these resolve without another commit.
    const results = await Promise.all([...inFlight, queued]);
    expect(results.every((result) => result.added)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(rows(file)).toHaveLength(501);
  });

  it('flush commits everything queued or in flight before it returns', async () => {
    const file = path.join(dir, 'plants.db');
    const store = await workerStore(file);
    const pending = Array.from({ length: 20 }, (_, i) => store.add({ id: BigInt(i), name: `p${i}` }));
    await new Promise((resolve) => setImmediate(resolve));
    pending.push(store.add({ id: 20n, name: 'queued' }));
    store.flush();
    expect(rows(file)).toHaveLength(21);
    expect((await Promise.all(pending)).every((result) => result.added)).toBe(true);
  });
});
