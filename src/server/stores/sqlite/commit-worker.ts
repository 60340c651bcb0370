import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { BatchOutcome } from '../group-commit-store.js';
import { CommitInterruptedError } from '../store-errors.js';
import {
  type CommitWorkerData,
  type PlantColumns,
  runCommitWorker,
  type WorkerMessage,
  type WorkerRequest,
} from './commit-worker-thread.js';
import type { SqliteDriver } from './sqlite-driver-api.js';

export interface CommitWorkerOptions {
  /** The database file; the caller has created and migrated it, in WAL mode. */
  file: string;
  /** The store's driver: the worker loads the same (its workerPrelude). */
  driver: SqliteDriver;
  /** `INSERT … VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`, the same the caller uses. */
  insertSql: string;
  /** SQLite busy timeout of the worker's connection. */
  busyTimeoutMs: number;
  /** SQLite `synchronous` of the worker's connection, as the store's own. */
  synchronous: 'FULL' | 'NORMAL';
}

/**
 * The thread's source, for an eval worker: the driver's prelude (which defines `Database`), then
 * runCommitWorker's compiled code, called with it.
 */
function workerSource(driver: SqliteDriver): string {
  return `'use strict';\n${driver.workerPrelude}(${runCommitWorker.toString()})(Database, require('node:worker_threads').workerData);\n`;
}

/** How long a synchronous wait for the worker may take beyond the busy timeout before it is given up. */
const SETTLE_MARGIN_MS = 30_000;

/**
 * A thread that commits batches of plants on its own SQLite connection, so that commits do not
 * stop the event loop: while one batch is being written (and, with `synchronous=FULL`, fsynced:
 * a millisecond or more), the server goes on reading and checking the requests of the next,
 * which gathers into a larger batch than the event loop alone would make.
 *
 * One batch at a time, in order. `send` is asynchronous; `settle` and `close` wait synchronously
 * (Atomics.wait), for the store's synchronous flush and close.
 */
export class CommitWorker {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #waitLimitMs: number;
  readonly #driver: SqliteDriver;
  #state: 'starting' | 'ready' | 'failed' | 'closed' = 'starting';
  #inFlight: ((outcome: BatchOutcome) => void) | undefined;

  constructor(options: CommitWorkerOptions) {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.#port = port1;
    this.#signal = new Int32Array(signal);
    this.#waitLimitMs = options.busyTimeoutMs + SETTLE_MARGIN_MS;
    this.#driver = options.driver;
    const workerData: CommitWorkerData = {
      port: port2,
      signal,
      file: options.file,
      insertSql: options.insertSql,
      busyTimeoutMs: options.busyTimeoutMs,
      synchronous: options.synchronous,
    };
    this.#worker = new Worker(workerSource(options.driver), { eval: true, workerData, transferList: [port2] });
    port1.on('message', (message: WorkerMessage) => this.#receive(message));
    // Neither the thread nor its port keeps the process alive; a batch in flight does (send).
    port1.unref();
    this.#worker.unref();
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new Error('the commit worker stopped')));
  }

  /** It has its connection and takes batches. Until then (or if it failed) commit elsewhere. */
  get ready(): boolean {
    return this.#state === 'ready';
  }

  /** A batch is in flight: send the next one when its `done` has been called. */
  get busy(): boolean {
    return this.#inFlight !== undefined;
  }

  /**
   * Commits `plants` in one transaction on the worker; `done` is called once, asynchronously.
   * The ids' buffer moves to the worker: `plants.ids` is empty afterwards.
   */
  send(plants: PlantColumns, done: (outcome: BatchOutcome) => void): void {
    if (this.#state !== 'ready' || this.#inFlight !== undefined) throw new Error('the commit worker is not free');
    this.#inFlight = done;
    this.#port.ref();
    this.#post({ type: 'batch', plants }, [plants.ids.buffer as ArrayBuffer]);
  }

  /** Waits (blocking) until the batch in flight, if any, has been answered and its `done` called. */
  settle(): void {
    if (!this.#waitUntil(() => this.#inFlight === undefined)) {
      this.#fail(new Error('the commit worker did not answer in time'));
    }
  }

  /** Waits for the batch in flight, then closes the worker's connection and ends the thread. Blocking. */
  close(): void {
    if (this.#state === 'closed') return;
    this.settle();
    // A worker still starting may be opening its connection: it must close it before the
    // caller closes the last one (which checkpoints the WAL and removes it).
    const open = this.#state === 'ready' || this.#state === 'starting';
    this.#state = 'closed';
    if (open) {
      this.#post({ type: 'close' });
      this.#waitUntil(() => this.#closeAcknowledged);
    }
    this.#port.close();
    void this.#worker.terminate();
  }

  #closeAcknowledged = false;

  #post(request: WorkerRequest, transfer: ArrayBuffer[] = []): void {
    this.#port.postMessage(request, transfer);
  }

  #receive(message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        if (this.#state === 'starting') this.#state = 'ready';
        return;
      case 'failed':
        if (this.#state === 'starting') this.#state = 'failed';
        return;
      case 'done': {
        const done = this.#inFlight;
        this.#inFlight = undefined;
        this.#port.unref();
        done?.('added' in message ? { added: message.added } : { error: toSqliteError(message.error, this.#driver) });
        return;
      }
      case 'closed':
        this.#closeAcknowledged = true;
        return;
    }
  }

  /**
   * Takes the worker's messages synchronously until `condition` holds or the time limit passes.
   * The worker posts, then bumps the counter: load it first, so that a message posted between
   * the look and the wait makes the wait return at once.
   */
  #waitUntil(condition: () => boolean): boolean {
    const deadline = Date.now() + this.#waitLimitMs;
    while (!condition()) {
      const seen = Atomics.load(this.#signal, 0);
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        this.#receive(received.message as WorkerMessage);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return false;
      Atomics.wait(this.#signal, 0, seen, Math.min(left, 1000));
    }
    return true;
  }

  /**
   * The thread died or stopped answering: the batch in flight fails, and no more are taken. It
   * may have been committed before, or (a thread that only stopped answering) after.
   */
  #fail(error: Error): void {
    if (this.#state !== 'closed') this.#state = 'failed';
    const done = this.#inFlight;
    this.#inFlight = undefined;
    this.#port.unref();
    done?.({
      error: new CommitInterruptedError(
        `the thread committing this plant failed (${error.message}); it may or may not be stored`,
        { cause: error },
      ),
    });
  }
}

function toSqliteError(error: { message: string; code?: string }, driver: SqliteDriver): Error {
  return error.code === undefined ? new Error(error.message) : new driver.SqliteError(error.message, error.code);
}
