import type { NewPlant } from '../../schema/plant.js';
import type { AddResult, PlantStore } from './plant-store.js';
import { StoreClosedError } from './store-errors.js';

/** `added`: per add, in order, falsy when its id was taken; or the one error every add of it is answered with. */
export type BatchOutcome = { added: ArrayLike<number | boolean> } | { error: unknown };

export interface PendingAdd {
  plant: NewPlant;
  resolve(result: AddResult): void;
  reject(error: unknown): void;
}

export interface BatchingOptions {
  maxBatchSize: number;
  maxBatchesInFlight: number;
  /** `next-turn`: the requests read in this turn go together; `at-once`: later adds gather behind those in flight. */
  start: 'next-turn' | 'at-once';
  /** For a backend that sends a batch again and must not mistake another add of the id for its own. */
  distinctIdsInFlight: boolean;
  onCommit?: ((batchSize: number) => void) | undefined;
}

/**
 * What both stores share, after undici's PoolBase: the queue, batches, group commit (each add answered only once
 * its batch is committed) and shutting down (what is queued is still committed). A backend supplies its commit,
 * its reads and how it lets its database go.
 */
export abstract class GroupCommitStore implements Pick<PlantStore, 'add' | 'close'> {
  readonly #batching: BatchingOptions;
  #queue: PendingAdd[] = [];
  #batchesInFlight = 0;
  readonly #idsInFlight = new Set<bigint>();
  #scheduled: NodeJS.Immediate | undefined;
  /** Set while #pump loops: a batch that settles at once is not pumped again from inside it. */
  #pumping = false;
  #idleWaiters: Array<() => void> = [];
  #closed = false;
  #closing: Promise<void> | undefined;
  #commits = 0;

  protected constructor(batching: BatchingOptions) {
    this.#batching = batching;
  }

  /**
   * Commits `batch` in one transaction (or statement) and calls `done` once, at once or later. An add may be
   * answered before (a promise settles once): `done` still comes.
   */
  protected abstract commitBatch(batch: PendingAdd[], done: (outcome: BatchOutcome) => void): void;

  protected abstract release(): void | Promise<void>;

  protected refuseAdd(): unknown {
    return undefined;
  }

  add(plant: NewPlant): Promise<AddResult> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    const refused = this.refuseAdd();
    if (refused !== undefined) return Promise.reject(refused);
    return new Promise<AddResult>((resolve, reject) => {
      this.#queue.push({ plant, resolve, reject });
      if (this.#batching.start === 'at-once' || this.#queue.length >= this.#batching.maxBatchSize) this.pump();
      else this.#scheduled ??= setImmediate(() => this.pump());
    });
  }

  protected pump(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#batchesInFlight < this.#batching.maxBatchesInFlight && this.#queue.length > 0) {
        const batch = this.#takeBatch();
        if (batch.length === 0) break;
        this.#batchesInFlight += 1;
        if (this.#batching.distinctIdsInFlight) for (const { plant } of batch) this.#idsInFlight.add(plant.id);
        this.#hand(batch);
      }
    } finally {
      this.#pumping = false;
    }
    this.#notifyIfIdle();
  }

  #hand(batch: PendingAdd[]): void {
    let finished = false;
    const done = (outcome: BatchOutcome) => {
      if (finished) return;
      finished = true;
      this.#finish(batch, outcome);
    };
    try {
      this.commitBatch(batch, done);
    } catch (error) {
      done({ error });
    }
  }

  #takeBatch(): PendingAdd[] {
    const { maxBatchSize, distinctIdsInFlight } = this.#batching;
    if (!distinctIdsInFlight) return this.#queue.splice(0, maxBatchSize);
    const batch: PendingAdd[] = [];
    const ids = new Set<bigint>();
    const left: PendingAdd[] = [];
    for (const pending of this.#queue) {
      const { id } = pending.plant;
      if (batch.length < maxBatchSize && !ids.has(id) && !this.#idsInFlight.has(id)) {
        ids.add(id);
        batch.push(pending);
      } else {
        left.push(pending);
      }
    }
    this.#queue = left;
    return batch;
  }

  #finish(batch: PendingAdd[], outcome: BatchOutcome): void {
    if (this.#batching.distinctIdsInFlight) for (const { plant } of batch) this.#idsInFlight.delete(plant.id);
    this.#batchesInFlight -= 1;
    if ('error' in outcome) {
      // It rolled back (nobody in it was stored), or its commit was cut off (anybody may be): everybody hears so.
      for (const pending of batch) pending.reject(outcome.error);
    } else {
      this.#commits += 1;
      this.#batching.onCommit?.(batch.length);
      for (const [index, { plant, resolve }] of batch.entries()) {
        resolve(outcome.added[index] ? { added: true, plant } : { added: false, id: plant.id });
      }
    }
    this.pump();
  }

  /** A backend that commits blocking (SQLite) has committed everything queued when this returns. */
  protected flush(): void {
    this.pump();
  }

  protected refuseQueued(errorFor: () => unknown): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const pending of queued) pending.reject(errorFor());
    this.#notifyIfIdle();
  }

  protected whenIdle(): Promise<void> {
    if (this.#idle) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  get #idle(): boolean {
    return this.#batchesInFlight === 0 && this.#queue.length === 0;
  }

  #notifyIfIdle(): void {
    if (!this.#idle || this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  get commits(): number {
    return this.#commits;
  }

  /** Safe to call twice. With synchronous commits and release (SQLite), closed by the time it returns. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    this.#closed = true;
    this.flush();
    if (!this.#idle) await this.whenIdle();
    await this.release();
  }
}
