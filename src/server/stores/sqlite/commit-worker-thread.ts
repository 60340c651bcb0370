import type { MessagePort } from 'node:worker_threads';
import type { SqliteDatabase, SqliteDatabaseClass } from './sqlite-driver-api.js';

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

/** What the thread is started with (its workerData). */
export interface CommitWorkerData {
  /** Where it takes requests and posts its messages. */
  port: MessagePort;
  /** A counter bumped after each message, for the main thread to wait on (Atomics.wait). */
  signal: SharedArrayBuffer;
  /** The database file; the caller has created and migrated it, in WAL mode. */
  file: string;
  /** `INSERT … VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`, the same the caller uses. */
  insertSql: string;
  busyTimeoutMs: number;
  synchronous: 'FULL' | 'NORMAL';
}

/** What the main thread sends the thread. */
export type WorkerRequest = { type: 'batch'; plants: PlantColumns } | { type: 'close' };

/** What the thread posts back: per plant, 1 when stored (0: the id was taken); or why none was. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; added: Uint8Array }
  | { type: 'done'; error: { message: string; code?: string | undefined } }
  | { type: 'closed' };

/**
 * The commit thread's whole program. It opens its own connection, with the store's `synchronous`,
 * and commits each batch it is sent in one transaction; after each message it posts, it bumps the
 * shared counter, so that the main thread can also wait for it synchronously (at close).
 *
 * Self-contained on purpose (it uses nothing from outside its body but its parameters, and only
 * types from imports): the thread runs its source (commit-worker.ts), which works the same from
 * dist/, from the TypeScript sources under test and in the single executable, where a worker
 * cannot load a file of ours.
 */
export function runCommitWorker(Database: SqliteDatabaseClass, data: CommitWorkerData): void {
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
      // Closing is all that is left to do: a connection that cannot close has nothing to keep.
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
