import { describe, expect, it } from 'vitest';
import type { NewPlant } from '../../../src/schema/plant.js';
import {
  type BatchingOptions,
  type BatchOutcome,
  GroupCommitStore,
  type PendingAdd,
} from '../../../src/server/stores/group-commit-store.js';
import { StoreClosedError } from '../../../src/server/stores/store-errors.js';

/**
 * The skeleton with the least backend there can be: plants in a Map, each batch committed at once
 * (`sync`) or when the test says (`finishNext`), so that what the skeleton does between is seen.
 */
class MapStore extends GroupCommitStore {
  readonly plants = new Map<bigint, NewPlant>();
  /** The ids of each batch, in the order they were handed to commitBatch. */
  readonly batches: bigint[][] = [];
  readonly #waiting: Array<() => void> = [];
  failNext: unknown;
  throwNext: unknown;
  refusal: unknown;
  released = 0;

  constructor(
    batching: Partial<BatchingOptions>,
    readonly sync: boolean,
  ) {
    super({ maxBatchSize: 3, maxBatchesInFlight: 1, start: 'next-turn', distinctIdsInFlight: false, ...batching });
  }

  protected override commitBatch(batch: PendingAdd[], done: (outcome: BatchOutcome) => void): void {
    this.batches.push(batch.map(({ plant }) => plant.id));
    if (this.throwNext !== undefined) {
      const error = this.throwNext;
      this.throwNext = undefined;
      throw error;
    }
    const commit = () => {
      if (this.failNext !== undefined) {
        const error = this.failNext;
        this.failNext = undefined;
        return done({ error });
      }
      const added = batch.map(({ plant }) => {
        if (this.plants.has(plant.id)) return false;
        this.plants.set(plant.id, plant);
        return true;
      });
      done({ added });
    };
    if (this.sync) commit();
    else this.#waiting.push(commit);
  }

  /** Commits the oldest batch handed over and not yet committed. */
  finishNext(): void {
    const commit = this.#waiting.shift();
    if (commit === undefined) throw new Error('no batch is waiting');
    commit();
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  protected override refuseAdd(): unknown {
    return this.refusal;
  }

  refuseAllQueued(error: unknown): void {
    this.refuseQueued(() => error);
  }

  idle(): Promise<void> {
    return this.whenIdle();
  }

  protected override release(): void {
    this.released += 1;
  }

  async get(id: bigint) {
    return this.plants.get(id);
  }
  async page() {
    return [...this.plants.values()];
  }
  async remove(id: bigint) {
    return this.plants.delete(id);
  }
  async replaceAll() {}
  async check() {}
}

const plant = (id: number): NewPlant => ({ id: BigInt(id), name: `p${id}` });
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommitStore', () => {
  it('gathers a turn of adds into batches of at most maxBatchSize, a full one at once, and answers each', async () => {
    const commits: number[] = [];
    const store = new MapStore({ onCommit: (size) => commits.push(size) }, true);
    const adds = [1, 2, 3, 4, 5, 6, 7].map((id) => store.add(plant(id)));
    // Two full batches went at once; the seventh add waits for the next turn.
    expect(store.batches).toEqual([
      [1n, 2n, 3n],
      [4n, 5n, 6n],
    ]);
    await turn();
    expect(store.batches).toHaveLength(3);
    expect(await Promise.all(adds)).toEqual([1, 2, 3, 4, 5, 6, 7].map((id) => ({ added: true, plant: plant(id) })));
    expect([store.commits, commits]).toEqual([3, [3, 3, 1]]);
  });

  it('answers an id already stored `added: false`, with its id', async () => {
    const store = new MapStore({}, true);
    await store.add(plant(1));
    expect(await store.add({ id: 1n, name: 'other' })).toEqual({ added: false, id: 1n });
  });

  it('at once: starts a batch per add while there is room, and the rest gather behind them', async () => {
    const store = new MapStore({ start: 'at-once', maxBatchesInFlight: 2 }, false);
    const adds = [1, 2, 3, 4, 5].map((id) => store.add(plant(id)));
    expect(store.batches).toEqual([[1n], [2n]]);
    store.finishNext();
    expect(store.batches).toEqual([[1n], [2n], [3n, 4n, 5n]]);
    store.finishNext();
    store.finishNext();
    expect((await Promise.all(adds)).every((result) => result.added)).toBe(true);
  });

  it('keeps ids distinct in flight when asked: the later add of an id waits, then finds it taken', async () => {
    const store = new MapStore({ start: 'at-once', maxBatchesInFlight: 2, distinctIdsInFlight: true }, false);
    const first = store.add(plant(1));
    const again = store.add({ id: 1n, name: 'again' });
    const other = store.add(plant(2));
    expect(store.batches).toEqual([[1n], [2n]]);
    store.finishNext();
    expect(store.batches).toEqual([[1n], [2n], [1n]]);
    store.finishNext();
    store.finishNext();
    expect(await Promise.all([first, again, other])).toEqual([
      { added: true, plant: plant(1) },
      { added: false, id: 1n },
      { added: true, plant: plant(2) },
    ]);
  });

  it('rejects every add of a batch that failed with its error, counts no commit, and goes on', async () => {
    const commits: number[] = [];
    const store = new MapStore({ onCommit: (size) => commits.push(size) }, true);
    const failure = new Error('rolled back');
    store.failNext = failure;
    const results = await Promise.allSettled([store.add(plant(1)), store.add(plant(2))]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect([store.commits, commits, store.plants.size]).toEqual([0, [], 0]);
    expect(await store.add(plant(1))).toEqual({ added: true, plant: plant(1) });
  });

  it('answers a batch whose commit threw with the error, and goes on', async () => {
    const store = new MapStore({}, true);
    const thrown = new Error('no connection');
    store.throwNext = thrown;
    const results = await Promise.allSettled([store.add(plant(1)), store.add(plant(2))]);
    expect(results.map((result) => (result.status === 'rejected' ? result.reason : result.value))).toEqual([
      thrown,
      thrown,
    ]);
    expect(await store.add(plant(1))).toEqual({ added: true, plant: plant(1) });
    await store.close();
    expect(store.released).toBe(1);
  });

  it('refuses an add at once when the backend says why, and can refuse what is queued', async () => {
    const store = new MapStore({ start: 'at-once' }, false);
    const away = new Error('away');
    store.refusal = away;
    await expect(store.add(plant(1))).rejects.toBe(away);
    store.refusal = undefined;
    const inFlight = store.add(plant(1));
    const queued = store.add(plant(2));
    const idle = store.idle();
    store.refuseAllQueued(away);
    await expect(queued).rejects.toBe(away);
    store.finishNext();
    await idle;
    expect(await inFlight).toEqual({ added: true, plant: plant(1) });
    expect(store.batches).toEqual([[1n]]);
  });

  it('at close: refuses new adds, commits what is queued, waits for the batch in flight, then releases once', async () => {
    const store = new MapStore({}, false);
    const first = store.add(plant(1));
    await turn();
    const queued = store.add(plant(2));
    const closing = store.close();
    expect(store.close()).toBe(closing);
    await expect(store.add(plant(3))).rejects.toBeInstanceOf(StoreClosedError);
    expect(store.released).toBe(0);
    store.finishNext();
    expect(store.waiting).toBe(1);
    store.finishNext();
    await closing;
    expect(await Promise.all([first, queued])).toEqual([
      { added: true, plant: plant(1) },
      { added: true, plant: plant(2) },
    ]);
    expect(store.released).toBe(1);
  });

  it('closes at once, released before close() returns, when its commits are synchronous', async () => {
    const store = new MapStore({}, true);
    const queued = store.add(plant(1));
    const closing = store.close();
    expect([store.released, store.plants.size]).toEqual([1, 1]);
    await closing;
    expect(await queued).toEqual({ added: true, plant: plant(1) });
  });
});
