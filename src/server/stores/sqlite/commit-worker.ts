import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { BatchOutcome } from '../group-commit-store.js';
import { CommitInterruptedError } from '../store-errors.js';
import type { SqliteDatabase, SqliteDatabaseClass, SqliteDriver } from './sqlite-driver-api.js';

type CommitWorkerOptions = Omit<CommitWorkerData, 'port' | 'signal'> & { driver: SqliteDriver };

function workerSource(driver: SqliteDriver): string {
  return `'use strict';\n${driver.workerPrelude}(${runCommitWorker.toString()})(Database, require('node:worker_threads').workerData);\n`;
}

/** Beyond the busy timeout. */
const SETTLE_MARGIN_MS = 30_000;

/**
 * Commits on a connection of its own: while one batch is fsynced (a millisecond or more), the next gathers into
 * a larger batch than the event loop alone would make. `settle` and `close` block (Atomics.wait), for the store's
 * synchronous flush and close.
 */
export class CommitWorker {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #waitLimitMs: number;
  readonly #driver: SqliteDriver;
  #state: 'starting' | 'ready' | 'failed' | 'closed' = 'starting';
  #inFlight: ((outcome: BatchOutcome) => void) | undefined;

  constructor({ driver, ...data }: CommitWorkerOptions) {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.#port = port1;
    this.#signal = new Int32Array(signal);
    this.#waitLimitMs = data.busyTimeoutMs + SETTLE_MARGIN_MS;
    this.#driver = driver;
    const workerData: CommitWorkerData = { ...data, port: port2, signal };
    this.#worker = new Worker(workerSource(driver), { eval: true, workerData, transferList: [port2] });
    port1.on('message', (message: WorkerMessage) => this.#receive(message));
    // Neither the thread nor its port keeps the process alive; a batch in flight does (send).
    port1.unref();
    this.#worker.unref();
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new Error('the commit worker stopped')));
  }

  get ready(): boolean {
    return this.#state === 'ready';
  }

  /** The ids' buffer moves to the worker: `plants.ids` is empty afterwards. */
  send(plants: PlantColumns, done: (outcome: BatchOutcome) => void): void {
    if (this.#state !== 'ready' || this.#inFlight !== undefined) throw new Error('the commit worker is not free');
    this.#inFlight = done;
    this.#port.ref();
    this.#post({ type: 'batch', plants }, [plants.ids.buffer as ArrayBuffer]);
  }

  settle(): void {
    if (!this.#waitUntil(() => this.#inFlight === undefined)) {
      this.#fail(new Error('the commit worker did not answer in time'));
    }
  }

  close(): void {
    if (this.#state === 'closed') return;
    this.settle();
    // One still starting may be opening its connection: it must close before the last one, which removes the WAL.
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

  /** The counter is loaded first, so that a message posted between the look and the wait ends the wait. */
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

  /** The batch in flight may have been committed before, or (a thread that only stopped answering) after. */
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

/** The ids in a typed array, moved to the worker, not copied: a batch costs the main thread little to send. */
export interface PlantColumns {
  ids: BigInt64Array;
  names: string[];
  tags: Array<string | null>;
}

interface CommitWorkerData {
  port: MessagePort;
  /** Bumped after each message, for the main thread to wait on. */
  signal: SharedArrayBuffer;
  /** Created and migrated by the caller, in WAL mode. */
  file: string;
  insertSql: string;
  busyTimeoutMs: number;
  synchronous: 'FULL' | 'NORMAL';
}

type WorkerRequest = { type: 'batch'; plants: PlantColumns } | { type: 'close' };

/** `added`: per plant, 1 when stored (0: the id was taken). */
type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; added: Uint8Array }
  | { type: 'done'; error: { message: string; code?: string | undefined } }
  | { type: 'closed' };

/**
 * Self-contained on purpose (nothing from outside its body but its parameters and imported types): the thread
 * runs its source, which works the same from dist/, the sources under test and the single executable, where a
 * worker cannot load a file of ours.
 */
function runCommitWorker(Database: SqliteDatabaseClass, data: CommitWorkerData): void {
  const { port, file, busyTimeoutMs, insertSql, synchronous } = data;
  const signal = new Int32Array(data.signal);
  const post = (message: WorkerMessage): void => {
    port.postMessage(message);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const describe = (error: unknown): { message: string; code?: string | undefined } => {
    const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
    return { message: String(message || error), code: typeof code === 'string' ? code : undefined };
  };
  let db: SqliteDatabase | undefined;
  const closeDb = (): void => {
    try {
      db?.close();
    } catch {
      // A connection that cannot close has nothing to keep.
    }
    db = undefined;
  };
  let insertBatch: ((plants: PlantColumns) => Uint8Array) | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
    db.defaultSafeIntegers(true);
    const mode = String(db.pragma('journal_mode', { simple: true }));
    if (mode !== 'wal') throw new Error(`the database is not in WAL mode (${mode})`);
    db.pragma(synchronous === 'NORMAL' ? 'synchronous = NORMAL' : 'synchronous = FULL');
    const insert = db.prepare<[bigint, string, string | null]>(insertSql);
    insertBatch = db.transaction(({ ids, names, tags }: PlantColumns) => {
      const added = new Uint8Array(ids.length);
      for (let i = 0; i < ids.length; i++) {
        added[i] = insert.run(ids[i] as bigint, names[i] as string, tags[i] ?? null).changes;
      }
      return added;
    }).immediate;
    post({ type: 'ready' });
  } catch (error) {
    closeDb();
    post({ type: 'failed', message: describe(error).message });
  }
  port.on('message', (request: WorkerRequest) => {
    if (request.type === 'batch') {
      let reply: WorkerMessage;
      try {
        if (insertBatch === undefined) throw new Error('the commit worker has no connection');
        reply = { type: 'done', added: insertBatch(request.plants) };
      } catch (error) {
        reply = { type: 'done', error: describe(error) };
      }
      post(reply);
    } else {
      closeDb();
      post({ type: 'closed' });
      port.close();
    }
  });
}
