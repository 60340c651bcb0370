import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { NewPlant } from '../../../schema/plant.js';
import type { AddResult, PendingAdd, PlantStore } from '../plant-store.js';
import {
  CommitInterruptedError,
  DatabaseOpenError,
  DatabaseReplacedError,
  StorageFullError,
  StoreClosedError,
  StoreUnavailableError,
} from '../store-errors.js';
import { sqliteDriver } from './choose-sqlite-driver.js';
import { type BatchOutcome, CommitWorker } from './commit-worker.js';
import type { SqliteDatabase, SqliteDriver, SqliteDriverName, SqliteStatement } from './sqlite-driver-api.js';

/**
 * How hard a commit tries to reach the disk (SQLite `synchronous`, always in WAL mode).
 * - `full`: the WAL is fsynced at every commit, so an acknowledged plant survives power loss
 *   and an OS crash. This is the default `plants serve` should pick: a 200 is a promise.
 * - `normal`: the WAL is fsynced only at checkpoints. An acknowledged plant survives the server
 *   process dying (even `kill -9`: the write is in the OS page cache), but a power cut may lose
 *   the last commits. The database is never corrupted either way. Faster on slow disks.
 */
export type Durability = 'full' | 'normal';

export interface SqlitePlantStoreOptions {
  durability: Durability;
  /**
   * How long SQLite waits for a lock another process holds before giving up, at start and at
   * each commit. Default 5000. better-sqlite3 is synchronous, so this wait blocks the server:
   * it only happens when some other program writes to our database file.
   */
  busyTimeoutMs?: number;
  /** Most plants committed in one transaction; more wait for the next one. Default 1000. */
  maxBatchSize?: number;
  /** Told of each committed transaction and how many plants it held (the metrics). */
  onCommit?: (batchSize: number) => void;
  /**
   * Where commits run. `worker` (the default for a `full` store in a file): on a thread of their
   * own, with a connection of their own (same `synchronous`), so that the event loop goes on
   * while a commit waits for its fsync; the next batch gathers meanwhile. `main` (the default
   * for `normal`, whose commits do not wait for the disk: handing batches to a thread would cost
   * more than it saves): on the calling thread. A `:memory:` store always commits on the main
   * thread. Either way, an add resolves only after its COMMIT returned.
   */
  commitThread?: 'main' | 'worker';
  /**
   * The SQLite driver: better-sqlite3 (the npm package's) or Node's node:sqlite (the single
   * executable's); by default as choose-sqlite-driver.ts decides. The file is the same either way.
   */
  driver?: SqliteDriverName;
}

/** What a migration uses of a database (a better-sqlite3 Database is one too). */
export type MigrationDatabase = Pick<SqliteDatabase, 'exec' | 'pragma' | 'transaction'>;

/** One step of the schema. Step `version` brings a database from `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(db: MigrationDatabase): void;
}

/**
 * The schema of the store, oldest first; `PRAGMA user_version` records how many have run.
 * Append new steps, never edit old ones: databases in the field have run them.
 */
export const PLANT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'create the plants table',
    up(db) {
      // INTEGER PRIMARY KEY is the 64-bit rowid: the id is stored exactly over the whole int64
      // range. STRICT makes SQLite refuse a value of the wrong type instead of coercing it.
      db.exec('CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT NULL) STRICT');
    },
  },
];

interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/** ON CONFLICT DO NOTHING rather than a failing INSERT: a taken id (in the table or earlier in
 * the same batch) must refuse that one plant, not roll back everyone else's. */
const INSERT_PLANT = 'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING';

/**
 * The plants, in one SQLite file (or `:memory:`), through better-sqlite3 or node:sqlite (`driver`).
 *
 * Adds are group-committed: each `add` joins a queue that is written in one transaction on the
 * next turn of the event loop, and its promise settles only after COMMIT returned, that is, once
 * the plant is in the database file as `durability` says. So a burst of concurrent requests
 * costs one fsync, not one each. A `full` store in a file commits on a worker thread (see
 * `commitThread`): while one batch waits for its fsync, the next one gathers.
 */
export class SqlitePlantStore implements PlantStore {
  readonly #db: SqliteDatabase;
  readonly #driver: SqliteDriver;
  readonly #insert: SqliteStatement<[bigint, string, string | null]>;
  readonly #select: SqliteStatement<[bigint], PlantRow>;
  readonly #insertBatch: (plants: readonly NewPlant[]) => number[];
  readonly #maxBatchSize: number;
  readonly #onCommit: ((batchSize: number) => void) | undefined;
  readonly #worker: CommitWorker | undefined;
  #queue: PendingAdd[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  #commits = 0;
  #closed = false;
  #flushing = false;
  /** The database file and the identity (device, inode) it had when opened; none in memory. */
  readonly #file: { path: string; dev: number; ino: number } | undefined;
  /** Set once the file is found deleted or replaced: it stays so until a restart. */
  #replaced: DatabaseReplacedError | undefined;

  private constructor(
    db: SqliteDatabase,
    driver: SqliteDriver,
    options: SqlitePlantStoreOptions,
    worker: CommitWorker | undefined,
    file: { path: string; dev: number; ino: number } | undefined,
  ) {
    this.#db = db;
    this.#driver = driver;
    this.#file = file;
    this.#worker = worker;
    this.#maxBatchSize = options.maxBatchSize ?? 1000;
    this.#onCommit = options.onCommit;
    this.#insert = db.prepare(INSERT_PLANT);
    this.#select = db.prepare('SELECT id, name, tag FROM plants WHERE id = ?');
    // IMMEDIATE takes the write lock at BEGIN, so a busy database fails before any work is done.
    this.#insertBatch = db.transaction((plants: readonly NewPlant[]) =>
      plants.map((plant) => this.#insert.run(plant.id, plant.name, plant.tag ?? null).changes),
    ).immediate;
  }

  /**
   * Opens (creating if needed) and migrates the database. Throws DatabaseOpenError, having
   * changed nothing, when the file is not a SQLite database, belongs to something else, comes
   * from a newer plants, is locked, or cannot be written.
   */
  static open(file: string, options: SqlitePlantStoreOptions): SqlitePlantStore {
    const fail = (message: string, cause?: unknown, hints?: readonly string[]) =>
      new DatabaseOpenError(message, { database: file, cause, hints });
    if (file !== ':memory:' && file !== '') {
      // better-sqlite3 says only "unable to open database file" for these; name the folder instead.
      const folder = path.dirname(path.resolve(file));
      if (!existsSync(folder)) throw fail(`cannot open database ${file}: the folder ${folder} does not exist`);
      if (!statSync(folder).isDirectory()) throw fail(`cannot open database ${file}: ${folder} is not a folder`);
      // SQLite opens a file it cannot write read-only without a word, and every add would then
      // fail; refuse it now instead (access() also sees what stops root, such as chattr +i).
      for (const [what, target] of [
        ['the file', file],
        ['its folder', folder],
      ] as const) {
        if (what === 'the file' && !existsSync(target)) continue;
        try {
          accessSync(target, constants.W_OK);
        } catch (error) {
          throw fail(
            `cannot open database ${file}: ${what} cannot be written (${(error as NodeJS.ErrnoException).code})`,
            error,
          );
        }
      }
    }
    const driver = sqliteDriver(options.driver);
    let db: SqliteDatabase;
    try {
      db = new driver.Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw describeOpenFailure(error, driver, file, fail);
    }
    try {
      db.defaultSafeIntegers(true);
      // Read before writing anything: a file that is not SQLite, or another program's database,
      // must be refused untouched (switching to WAL already rewrites the header).
      const version = Number(db.pragma('user_version', { simple: true }));
      const objects = Number(db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get());
      const latest = PLANT_MIGRATIONS.length;
      if (version > latest) {
        throw fail(
          `database ${file} has schema version ${version}, newer than this plants knows (${latest}); refusing to use it`,
          undefined,
          ['Upgrade plants, or point it at another database file.'],
        );
      }
      if (version === 0 && objects > 0) {
        throw fail(`database ${file} is a SQLite database of some other program (it has tables but no plants schema)`);
      }
      const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
      if (mode !== 'wal' && mode !== 'memory')
        throw fail(`database ${file} cannot use a write-ahead log (got ${mode})`);
      db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
      migrate(db, PLANT_MIGRATIONS);
      const inMemory = file === ':memory:' || file === '';
      const commitThread = options.commitThread ?? (options.durability === 'full' ? 'worker' : 'main');
      const worker =
        commitThread === 'worker' && !inMemory
          ? new CommitWorker({
              file,
              driver,
              insertSql: INSERT_PLANT,
              busyTimeoutMs: options.busyTimeoutMs ?? 5000,
              synchronous: options.durability === 'full' ? 'FULL' : 'NORMAL',
            })
          : undefined;
      let identity: { path: string; dev: number; ino: number } | undefined;
      if (!inMemory) {
        const { dev, ino } = statSync(file);
        identity = { path: path.resolve(file), dev, ino };
      }
      return new SqlitePlantStore(db, driver, options, worker, identity);
    } catch (error) {
      db.close();
      if (error instanceof DatabaseOpenError) throw error;
      throw describeOpenFailure(error, driver, file, fail);
    }
  }

  /** Adds a plant; resolves once it is committed, or with `added: false` when the id is taken. */
  add(plant: NewPlant): Promise<AddResult> {
    if (this.#closed) return Promise.reject(new StoreClosedError());
    return new Promise<AddResult>((resolve, reject) => {
      this.#queue.push({ plant, resolve, reject });
      // On the main thread a full queue is committed at once; the worker takes it in slices.
      if (this.#queue.length >= this.#maxBatchSize && this.#worker?.ready !== true) this.flush();
      else this.#scheduled ??= setImmediate(this.#commitNext);
    });
  }

  /**
   * Commits every queued add now, on this thread, after the batch the worker has in flight (if
   * any) is done. Blocking. The server calls it at close; tests may call it too.
   */
  flush(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#flushing = true;
    try {
      this.#worker?.settle();
      while (this.#queue.length > 0) this.#commitHere(this.#queue.splice(0, this.#maxBatchSize));
    } finally {
      this.#flushing = false;
    }
  }

  /** The next turn of the event loop: hands the queue to the worker when it is free, or commits here. */
  readonly #commitNext = (): void => {
    this.#scheduled = undefined;
    const worker = this.#worker;
    if (worker === undefined || !worker.ready || this.#closed) {
      this.flush();
      return;
    }
    // Busy: the queue goes when the batch in flight is done (see below), gathering meanwhile.
    if (worker.busy || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#maxBatchSize);
    const replaced = this.#fileReplaced();
    if (replaced !== undefined) {
      this.#settle(batch, { error: replaced });
      if (this.#queue.length > 0) this.#scheduled ??= setImmediate(this.#commitNext);
      return;
    }
    const ids = new BigInt64Array(batch.length);
    const names: string[] = [];
    const tags: Array<string | null> = [];
    for (const [index, { plant }] of batch.entries()) {
      ids[index] = plant.id;
      names.push(plant.name);
      tags.push(plant.tag ?? null);
    }
    worker.send({ ids, names, tags }, (outcome) => {
      this.#settle(batch, outcome);
      // What gathered meanwhile goes at once, unless a flush is taking it on this thread.
      if (this.#queue.length > 0 && !this.#closed && !this.#flushing) this.#commitNext();
    });
  };

  #commitHere(batch: PendingAdd[]): void {
    let outcome: BatchOutcome;
    const replaced = this.#fileReplaced();
    try {
      if (replaced !== undefined) throw replaced;
      outcome = { added: this.#insertBatch(batch.map((pending) => pending.plant)) };
    } catch (error) {
      outcome = { error: error as Error };
    }
    this.#settle(batch, outcome);
  }

  #settle(batch: PendingAdd[], outcome: BatchOutcome): void {
    if ('error' in outcome) {
      // One answer for the whole batch: it rolled back (nobody in it was stored), or its commit was
      // cut off by the storage (anybody may be), and everybody hears so.
      const error = describeWriteFailure(
        outcome.error,
        this.#driver,
        'storing this plant, which may or may not be stored',
      );
      for (const pending of batch) pending.reject(error);
      return;
    }
    this.#commits += 1;
    this.#onCommit?.(batch.length);
    const { added } = outcome;
    batch.forEach((pending, index) => {
      pending.resolve(
        added[index] === 1 ? { added: true, plant: pending.plant } : { added: false, id: pending.plant.id },
      );
    });
  }

  /**
   * Resolves when the store can serve: open, its database answering, its schema the one this
   * plants migrated to (another program may have changed it since). Rejects with
   * StoreClosedError once closed, StoreUnavailableError otherwise. Cheap (one pragma read):
   * `/readyz` asks it every time.
   */
  async check(): Promise<void> {
    if (this.#closed) throw new StoreClosedError();
    const replaced = this.#fileReplaced();
    if (replaced !== undefined) throw new StoreUnavailableError(replaced.message);
    let version: number;
    try {
      version = Number(this.#db.pragma('user_version', { simple: true }));
    } catch (error) {
      throw new StoreUnavailableError(`the database does not answer: ${oneLine(error)}`, { cause: error });
    }
    const latest = PLANT_MIGRATIONS.length;
    if (version !== latest) {
      throw new StoreUnavailableError(
        `the database schema is at version ${version}; this plants serves version ${latest}`,
      );
    }
  }

  async get(id: bigint): Promise<NewPlant | undefined> {
    const row = this.#select.get(id);
    return row === undefined ? undefined : fromRow(row);
  }

  /** Up to `limit` plants with an id above `after` (or from the first), in id order. */
  async page(after: bigint | undefined, limit: number): Promise<NewPlant[]> {
    const rows =
      after === undefined
        ? this.#db.prepare<[number], PlantRow>('SELECT id, name, tag FROM plants ORDER BY id LIMIT ?').all(limit)
        : this.#db
            .prepare<[bigint, number], PlantRow>('SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?')
            .all(after, limit);
    return rows.map(fromRow);
  }

  /**
   * Deletes a plant; false when there was none. Committed, as durably as an add, before it
   * returns. On this thread: deletes are rare, and SQLite serialises them with the adds.
   */
  async remove(id: bigint): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError();
    const replaced = this.#fileReplaced();
    if (replaced !== undefined) throw replaced;
    try {
      return this.#db.prepare<[bigint]>('DELETE FROM plants WHERE id = ?').run(id).changes === 1;
    } catch (error) {
      throw describeWriteFailure(error, this.#driver, 'deleting this plant, which may or may not be deleted');
    }
  }

  /**
   * One IMMEDIATE transaction: DELETE every plant, INSERT these. Queued adds (and the batch the
   * worker has in flight) are committed first. better-sqlite3 is synchronous, so no request is
   * answered while it runs, and nothing of a half-replaced table is ever read.
   */
  async replaceAll(plants: readonly NewPlant[]): Promise<void> {
    if (this.#closed) throw new StoreClosedError();
    this.flush();
    const replaced = this.#fileReplaced();
    if (replaced !== undefined) throw replaced;
    try {
      this.#db
        .transaction(() => {
          this.#db.prepare('DELETE FROM plants').run();
          for (const plant of plants) this.#insert.run(plant.id, plant.name, plant.tag ?? null);
        })
        .immediate();
    } catch (error) {
      throw describeWriteFailure(error, this.#driver, 'resetting the store, which may or may not be reset');
    }
  }

  /**
   * Whether the database file is still the one opened. Deleted, or replaced by another file (a
   * restore, a `mv`), it is not: our connections would go on committing into an unlinked inode,
   * acknowledged and then lost at the next start. One stat() a commit, before it.
   */
  #fileReplaced(): DatabaseReplacedError | undefined {
    if (this.#replaced !== undefined || this.#file === undefined) return this.#replaced;
    const now = statSync(this.#file.path, { throwIfNoEntry: false });
    if (now === undefined || now.dev !== this.#file.dev || now.ino !== this.#file.ino) {
      this.#replaced = new DatabaseReplacedError(this.#file.path);
    }
    return this.#replaced;
  }

  /** Every plant, by id. For tests and small stores: it reads the whole table. */
  list(): NewPlant[] {
    return this.#db.prepare<[], PlantRow>('SELECT id, name, tag FROM plants ORDER BY id').all().map(fromRow);
  }

  /** The journal settings in force on the store's connection (`synchronous` is per connection). */
  get journal(): { journalMode: string; synchronous: string } {
    const levels = ['off', 'normal', 'full', 'extra'];
    const level = Number(this.#db.pragma('synchronous', { simple: true }));
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: levels[level] ?? String(level),
    };
  }

  /** Where the next batch is committed: on the worker once it is up (see `commitThread`), else here. */
  get commitThread(): 'main' | 'worker' {
    return this.#worker?.ready === true && !this.#closed ? 'worker' : 'main';
  }

  /** The SQLite driver it runs on (choose-sqlite-driver.ts). */
  get driver(): SqliteDriverName {
    return this.#driver.name;
  }

  /** Transactions committed by group commit so far. */
  get commits(): number {
    return this.#commits;
  }

  /**
   * Commits what is queued, then closes the database (checkpointing the WAL). The work is done,
   * blocking, before this returns, even with a batch in flight on the worker. Safe to call twice.
   */
  async close(): Promise<void> {
    this.closeNow();
  }

  /** close(), for callers that cannot wait for a promise. */
  closeNow(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.flush();
    // The worker's connection first: the last one to close checkpoints the WAL and removes it.
    this.#worker?.close();
    this.#db.close();
  }
}

function fromRow(row: PlantRow): NewPlant {
  return row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag };
}

/**
 * Brings the schema up to the last step, each step and its `user_version` in one transaction.
 * BEGIN IMMEDIATE even when there is nothing to do: it proves at start that we can take the
 * write lock, so a database another process holds is refused now rather than failing every add.
 */
export function migrate(db: MigrationDatabase, migrations: readonly Migration[]): { from: number; to: number } {
  const begin = db.transaction(() => Number(db.pragma('user_version', { simple: true })));
  const from = begin.immediate();
  for (const step of migrations) {
    if (step.version <= from) continue;
    db.transaction(() => {
      step.up(db);
      // PRAGMA takes no parameters; the version is an integer of ours, not input.
      db.pragma(`user_version = ${step.version}`);
    }).immediate();
  }
  return { from, to: Math.max(from, migrations.at(-1)?.version ?? 0) };
}

function describeOpenFailure(
  error: unknown,
  driver: SqliteDriver,
  file: string,
  fail: (message: string, cause?: unknown, hints?: readonly string[]) => DatabaseOpenError,
): DatabaseOpenError {
  const code = error instanceof driver.SqliteError ? error.code : undefined;
  switch (code) {
    case 'SQLITE_NOTADB':
      return fail(`${file} is not a SQLite database; refusing to use it (the file was left unchanged)`, error);
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return fail(`database ${file} is locked by another process`, error, [
        'Is another `plants serve` using it? Stop it, or use another database file.',
      ]);
    case 'SQLITE_CORRUPT':
      return fail(`database ${file} is damaged (SQLite reports it as corrupt)`, error);
    case 'SQLITE_FULL':
      return fail(`cannot write database ${file}: the disk is full`, error);
    case 'SQLITE_CANTOPEN':
      return fail(`cannot open database ${file}: check that it is a file in a folder you can write to`, error);
    default:
      if (code?.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
        return fail(`cannot write database ${file}: permission denied or read-only`, error);
      }
      return fail(`cannot open database ${file}: ${oneLine(error)}`, error);
  }
}

/**
 * A failed write, as the client should hear it: a full disk says so (507: SQLite stops before
 * the write-ahead log holds the commit, so nothing was stored); an I/O error (an fsync that
 * failed, a disk that went away) may have cut off a commit whose pages reached the log, which
 * the next open recovers, so it may or may not be `done` (500, outcome unknown); a store error
 * as it is (the commit thread lost mid-commit); the rest as it is (a 500).
 */
function describeWriteFailure(error: unknown, driver: SqliteDriver, done: string): unknown {
  if (!(error instanceof driver.SqliteError)) return error;
  if (error.code === 'SQLITE_FULL') return new StorageFullError({ cause: error });
  if (error.code.startsWith('SQLITE_IOERR'))
    return new CommitInterruptedError(`the disk failed (${error.code}) while ${done}`, { cause: error });
  return error;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
