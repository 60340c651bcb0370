import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { CommitInterruptedError } from '../store-errors.js';
import type { SqliteDriver } from './sqlite-driver-api.js';

/**
 * Plants as the worker takes them: column by column, the ids in a typed array (moved to the
 * worker, not copied), so that a batch costs the main thread little to send.
 */
export interface PlantColumns {
  ids: BigInt64Array;
  names: string[];
  /** null: no tag. */
  tags: Array<string | null>;
}

/**
 * What a batch came to: per plant, whether it was stored (1; 0: the id was taken); or why
 * none was (the transaction rolled back).
 */
export type BatchOutcome = { added: ArrayLike<number> } | { error: Error };

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

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; added: Uint8Array }
  | { type: 'done'; error: { message: string; code?: string } }
  | { type: 'closed' };

/**
 * The worker, as CommonJS source for an eval worker: it works the same from dist/ and from the
 * TypeScript sources under test, where a worker file would have to be compiled first. It opens
 * its own connection, with the store's `synchronous`, and commits each batch it is sent in one
 * transaction. After each message it bumps a shared counter, so that the main thread can also
 * wait for it synchronously (at close).
 */
const WORKER_SOURCE = `const { workerData } = require('node:worker_threads');
const { port, file, busyTimeoutMs, insertSql, synchronous } = workerData;
const signal = new Int32Array(workerData.signal);
function post(message) {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
function describe(error) {
  return { message: String(error && error.message || error), code: error && typeof error.code === 'string' ? error.code : undefined };
}
let db;
let insertBatch;
try {
  db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
  db.defaultSafeIntegers(true);
  const mode = String(db.pragma('journal_mode', { simple: true }));
  if (mode !== 'wal') throw new Error('the database is not in WAL mode (' + mode + ')');
  db.pragma(synchronous === 'NORMAL' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  const insert = db.prepare(insertSql);
  insertBatch = db.transaction(({ ids, names, tags }) => {
    const added = new Uint8Array(ids.length);
    for (let i = 0; i < ids.length; i++) added[i] = insert.run(ids[i], names[i], tags[i]).changes;
    return added;
  }).immediate;
  post({ type: 'ready' });
} catch (error) {
  try { if (db) db.close(); } catch {}
  db = undefined;
  post({ type: 'failed', message: describe(error).message });
}
port.on('message', (message) => {
  if (message.type === 'batch') {
    let reply;
    try {
      reply = { type: 'done', added: insertBatch(message.plants) };
    } catch (error) {
      reply = { type: 'done', error: describe(error) };
    }
    post(reply);
  } else if (message.type === 'close') {
    try { if (db) db.close(); } catch {}
    db = undefined;
    post({ type: 'closed' });
    port.close();
  }
});
`;

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
    this.#worker = new Worker(`'use strict';\n${options.driver.workerPrelude}${WORKER_SOURCE}`, {
      eval: true,
      workerData: {
        port: port2,
        signal,
        file: options.file,
        insertSql: options.insertSql,
        busyTimeoutMs: options.busyTimeoutMs,
        synchronous: options.synchronous,
      },
      transferList: [port2],
    });
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
    this.#port.postMessage({ type: 'batch', plants }, [plants.ids.buffer as ArrayBuffer]);
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
      this.#port.postMessage({ type: 'close' });
      this.#waitUntil(() => this.#closeAcknowledged);
    }
    this.#port.close();
    void this.#worker.terminate();
  }

  #closeAcknowledged = false;

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
