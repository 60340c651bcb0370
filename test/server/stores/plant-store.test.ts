import { afterEach, describe, expect, it } from 'vitest';
import { openPlantStore } from '../../../src/server/stores/open-store.js';
import type { PlantStore } from '../../../src/server/stores/plant-store.js';
import { StoreClosedError } from '../../../src/server/stores/store-errors.js';
import { nodeSqliteBackend, nodeSqliteRuns, type StoreLocation, storeBackends } from '../../helpers/store-backends.js';

// What every store does, whichever database it is on: one suite, run on each backend, and on
// SQLite with each driver (node:sqlite, the single executable's, on every Node it runs on: 24+).
const backends = nodeSqliteRuns() ? [...storeBackends(), nodeSqliteBackend] : storeBackends();
describe.each(backends)('PlantStore on $name', (backend) => {
  const locations: StoreLocation[] = [];
  const open: PlantStore[] = [];

  async function openStore(): Promise<{ store: PlantStore; location: StoreLocation }> {
    const location = await backend.create();
    locations.push(location);
    const store = await openPlantStore({
      database: location.database,
      durability: 'full',
      sqliteDriver: backend.sqliteDriver,
    });
    open.push(store);
    return { store, location };
  }

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const location of locations.splice(0)) await location.remove();
  });

  it('stores and returns int64 ids exactly, at both ends of the range and around 2^53', async () => {
    const { store, location } = await openStore();
    const ids = [9223372036854775807n, -9223372036854775808n, 9007199254740993n, 9007199254740992n, 0n, -1n];
    for (const id of ids) {
      expect(await store.add({ id, name: `p${id}` })).toEqual({ added: true, plant: { id, name: `p${id}` } });
    }
    for (const id of ids) expect(await store.get(id)).toEqual({ id, name: `p${id}` });
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect((await store.page(undefined, 100)).map((plant) => plant.id)).toEqual(sorted);
    expect((await location.readPlants()).map((row) => row.id)).toEqual(sorted);
  });

  it('keeps the tag only when one was given (an empty tag is a tag)', async () => {
    const { store } = await openStore();
    await store.add({ id: 1n, name: 'fern' });
    await store.add({ id: 2n, name: 'rose', tag: '' });
    await store.add({ id: 3n, name: 'ivy', tag: 'climber' });
    expect(await store.page(undefined, 10)).toEqual([
      { id: 1n, name: 'fern' },
      { id: 2n, name: 'rose', tag: '' },
      { id: 3n, name: 'ivy', tag: 'climber' },
    ]);
  });

  it('stores any text the contract takes, U+0000 and emoji included, byte for byte, beside others in one batch', async () => {
    const { store, location } = await openStore();
    const odd = [
      { id: 1n, name: '\u0000'.repeat(1024) },
      { id: 2n, name: 'a\u0000b', tag: '\u0000' },
      { id: 3n, name: '🌿\u2028\ufeff"\\\'; DROP TABLE plants;--', tag: 'é' },
      { id: 4n, name: 'plain' },
    ];
    const results = await Promise.all(odd.map((plant) => store.add(plant)));
    expect(results.map((result) => result.added)).toEqual([true, true, true, true]);
    for (const plant of odd) expect(await store.get(plant.id)).toEqual(plant);
    expect(await location.readPlants()).toEqual(odd.map((plant) => ({ ...plant, tag: plant.tag ?? null })));
  });

  it('refuses a taken id and keeps the stored plant unchanged', async () => {
    const { store } = await openStore();
    await store.add({ id: 7n, name: 'first', tag: 'a' });
    expect(await store.add({ id: 7n, name: 'second' })).toEqual({ added: false, id: 7n });
    expect(await store.get(7n)).toEqual({ id: 7n, name: 'first', tag: 'a' });
  });

  it('answers each of many concurrent adds on its own: one 200 per id, the rest refused', async () => {
    const { store, location } = await openStore();
    await store.add({ id: 1n, name: 'already there' });
    const adds = [
      { id: 10n, name: 'a' },
      { id: 11n, name: 'b' },
      { id: 10n, name: 'a again' },
      { id: 1n, name: 'clash with the table' },
      { id: 12n, name: 'c' },
      ...Array.from({ length: 300 }, (_, i) => ({ id: 1000n + BigInt(i % 150), name: `n${i}` })),
    ];
    const results = await Promise.all(adds.map((plant) => store.add(plant)));
    expect(results.slice(0, 5).map((result) => result.added)).toEqual([true, true, false, false, true]);
    // Of two adds of one id, the first (in the order they were made) wins.
    expect(results.slice(5).map((result) => result.added)).toEqual(Array.from({ length: 300 }, (_, i) => i < 150));
    const rows = await location.readPlants();
    expect(rows.map((row) => [row.id, row.name])).toEqual([
      [1n, 'already there'],
      [10n, 'a'],
      [11n, 'b'],
      [12n, 'c'],
      ...Array.from({ length: 150 }, (_, i) => [1000n + BigInt(i), `n${i}`]),
    ]);
  });

  it('resolves an add only once it is visible to other connections', async () => {
    const { store, location } = await openStore();
    const added = await store.add({ id: 5n, name: 'fern' });
    expect(added.added).toBe(true);
    expect(await location.readPlants()).toEqual([{ id: 5n, name: 'fern', tag: null }]);
  });

  it('pages in id order after a given id', async () => {
    const { store } = await openStore();
    await Promise.all([5n, -3n, 9n, 1n].map((id) => store.add({ id, name: `p${id}` })));
    expect((await store.page(undefined, 2)).map((plant) => plant.id)).toEqual([-3n, 1n]);
    expect((await store.page(1n, 2)).map((plant) => plant.id)).toEqual([5n, 9n]);
    expect(await store.page(9n, 2)).toEqual([]);
  });

  it('removes a plant once, then says there was none', async () => {
    const { store, location } = await openStore();
    await store.add({ id: 9223372036854775807n, name: 'max' });
    expect(await store.remove(9223372036854775807n)).toBe(true);
    expect(await store.remove(9223372036854775807n)).toBe(false);
    expect(await store.get(9223372036854775807n)).toBeUndefined();
    expect(await location.readPlants()).toEqual([]);
  });

  it('says it can take requests while open', async () => {
    const { store } = await openStore();
    await expect(store.check()).resolves.toBeUndefined();
  });

  it('commits queued adds at close, then refuses new ones', async () => {
    const { store, location } = await openStore();
    const pending = store.add({ id: 1n, name: 'queued' });
    await store.close();
    await expect(pending).resolves.toEqual({ added: true, plant: { id: 1n, name: 'queued' } });
    await expect(store.add({ id: 2n, name: 'late' })).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.check()).rejects.toThrow('closed');
    await store.close();
    expect(await location.readPlants()).toEqual([{ id: 1n, name: 'queued', tag: null }]);
  });

  it('opens an existing store again with what it holds', async () => {
    const { store, location } = await openStore();
    await store.add({ id: -9223372036854775808n, name: 'min' });
    await store.close();
    const again = await openPlantStore({
      database: location.database,
      durability: 'full',
      sqliteDriver: backend.sqliteDriver,
    });
    open.push(again);
    expect(await again.get(-9223372036854775808n)).toEqual({ id: -9223372036854775808n, name: 'min' });
    expect(await again.add({ id: -9223372036854775808n, name: 'other' })).toEqual({
      added: false,
      id: -9223372036854775808n,
    });
  });
  it('replaceAll makes it hold exactly the plants given, ids exact, and again and again', async () => {
    const { store, location } = await openStore();
    await store.add({ id: 1n, name: 'old' });
    await store.add({ id: 5n, name: 'gone' });
    const seed = [
      { id: 9223372036854775807n, name: 'max', tag: '' },
      { id: -9223372036854775808n, name: 'min' },
      { id: 1n, name: 'new one', tag: 'herb' },
    ];
    await store.replaceAll(seed);
    const expected = [
      { id: -9223372036854775808n, name: 'min', tag: null },
      { id: 1n, name: 'new one', tag: 'herb' },
      { id: 9223372036854775807n, name: 'max', tag: '' },
    ];
    expect(await location.readPlants()).toEqual(expected);
    await store.add({ id: 2n, name: 'added between' });
    await store.replaceAll(seed);
    expect(await location.readPlants()).toEqual(expected);
    await store.replaceAll([]);
    expect(await location.readPlants()).toEqual([]);
    expect(await store.add({ id: 1n, name: 'after' })).toEqual({ added: true, plant: { id: 1n, name: 'after' } });
  });

  it('replaceAll commits the adds queued before it first, so they are replaced too', async () => {
    const { store, location } = await openStore();
    const queued = [store.add({ id: 7n, name: 'queued' }), store.add({ id: 8n, name: 'queued' })];
    await store.replaceAll([{ id: 1n, name: 'seed' }]);
    expect(await Promise.all(queued)).toEqual([
      { added: true, plant: { id: 7n, name: 'queued' } },
      { added: true, plant: { id: 8n, name: 'queued' } },
    ]);
    expect(await location.readPlants()).toEqual([{ id: 1n, name: 'seed', tag: null }]);
  });

  it('replaceAll is atomic: reads while it runs see all the old plants or all the new, never a mix', async () => {
    const { store } = await openStore();
    const old = Array.from({ length: 1500 }, (_, index) => ({ id: BigInt(index), name: 'old' }));
    const fresh = Array.from({ length: 8000 }, (_, index) => ({ id: BigInt(index + 100_000), name: 'new' }));
    await store.replaceAll(old);
    // Connections ready (PostgreSQL's pool), so that the readers are reading while it runs.
    await Promise.all(Array.from({ length: 6 }, () => store.page(undefined, 1)));
    const seen = new Set<string>();
    let done = false;
    const replacing = store.replaceAll(fresh).finally(() => {
      done = true;
    });
    const reads: Promise<void>[] = [];
    for (let reader = 0; reader < 6; reader++) {
      reads.push(
        (async () => {
          do {
            const page = await store.page(undefined, 10_000);
            const names = new Set(page.map((plant) => plant.name));
            seen.add(`${page.length}:${[...names].sort().join(',')}`);
          } while (!done);
        })(),
      );
    }
    await replacing;
    await Promise.all(reads);
    for (const state of seen) expect(['1500:old', '8000:new']).toContain(state);
    expect(seen).toContain('8000:new');
  });
});
