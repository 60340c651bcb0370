import type { NewPlant } from '../../schema/plant.js';
import type { AddResult, PlantStore } from './plant-store.js';
import { StoreClosedError } from './store-errors.js';

/**
 * What a batch came to: per add, in order, whether it was stored (truthy; falsy: its id was
 * taken); or the one error every add of it is answered with (nothing stored, or, as the error
 * says, maybe something).
 */
export type BatchOutcome = { added: ArrayLike<number | boolean> } | { error: unknown };

/** An add waiting in a store's queue for the batch that commits it. */
export interface PendingAdd {
  plant: NewPlant;
  resolve(result: AddResult): void;
  reject(error: unknown): void;
}

/** How a backend's adds are gathered into batches. */
export interface BatchingOptions {
  /** Most adds in one batch; more wait for the next. */
  maxBatchSize: number;
  /** Batches being committed at once; the next gathers meanwhile. */
  maxBatchesInFlight: number;
  /**
   * When a batch starts once there is room for it: `next-turn` on the next turn of the event loop
   * (a full batch at once), so that the requests read in this turn go together; `at-once` as soon
   * as an add arrives, the adds that arrive meanwhile gathering behind the batches in flight.
   */
  start: 'next-turn' | 'at-once';
  /**
   * No two adds of one id in flight at once: the later waits in the queue, then finds the id
   * taken. For a backend that sends a batch again after a failure and must not mistake another
   * add of the id for its own.
   */
  distinctIdsInFlight: boolean;
  /** Told of each committed batch and how many plants it held (the metrics). */
  onCommit?: ((batchSize: number) => void) | undefined;
}

/**
 * What both stores share, written once: the queue of adds, their batches, the group commit (each
 * add answered only once its batch is committed), the answers, and shutting down (what is queued
 * is still committed). A backend supplies its commit (`commitBatch`), its reads and its other
 * changes, and how it lets its database go (`release`), after undici's PoolBase.
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
   * Commits `batch` in one transaction (or statement) and calls `done` once with what it came to,
   * at once or later. An add may be answered before (a promise settles once): `done` still comes.
   */
  protected abstract commitBatch(batch: PendingAdd[], done: (outcome: BatchOutcome) => void): void;

  /** Lets the database go, once every add has its answer. */
  protected abstract release(): void | Promise<void>;

  /** Why a new add is refused at once (the database is known to be away), or undefined. */
  protected refuseAdd(): unknown {
    return undefined;
  }

  /** Adds a plant; resolves once it is committed, or with `added: false` when the id is taken. */
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

  /** Starts batches while adds wait and there is room; a backend that commits at once commits them all here. */
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

  /** Hands `batch` to the backend, once: a commit that throws is the batch's outcome; a second `done` is ignored. */
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

  /** Up to maxBatchSize adds from the queue, in order (with distinctIdsInFlight, skipping ids already in this batch or one in flight). */
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
      // One answer for the whole batch: it rolled back (nobody in it was stored), or its commit was
      // cut off (anybody may be), and everybody hears so.
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

  /**
   * Commits what is queued as far as the backend can now: starts its batches. A backend that can
   * commit blocking (SQLite) commits it all before this returns.
   */
  protected flush(): void {
    this.pump();
  }

  /** Answers every add not yet in a batch with `errorFor()` (the database is away: they would only wait). */
  protected refuseQueued(errorFor: () => unknown): void {
    const queued = this.#queue;
    this.#queue = [];
    for (const pending of queued) pending.reject(errorFor());
    this.#notifyIfIdle();
  }

  /** Resolves once no add is queued or in flight. */
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

  /** The store was closed: adds are refused (StoreClosedError). */
  protected get closed(): boolean {
    return this.#closed;
  }

  get commits(): number {
    return this.#commits;
  }

  /**
   * Stops taking adds, commits what is queued and lets every batch in flight finish (each add gets
   * its answer), then lets the database go. Safe to call twice. A backend whose commits and
   * release are synchronous (SQLite) is closed by the time this returns.
   */
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
