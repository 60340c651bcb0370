import { statSync } from 'node:fs';
import type { NewPlant } from '../../../schema/plant.js';
import { type BatchingOptions, type BatchOutcome, GroupCommitStore, type PendingAdd } from '../group-commit-store.js';
import {
  CommitInterruptedError,
  DatabaseReplacedError,
  StorageFullError,
  StoreClosedError,
  StoreUnavailableError,
} from '../store-errors.js';
import { CommitWorker, type PlantColumns } from './commit-worker.js';
import {
  describeOpenFailure,
  type FileIdentity,
  inMemory,
  oneLine,
  openSqlite,
  type SqliteOpenOptions,
} from './open-sqlite.js';
import type { SqliteDatabase, SqliteDriver, SqliteDriverName, SqliteStatement } from './sqlite-driver-api.js';
import { PLANT_MIGRATIONS } from './sqlite-migrations.js';

export interface SqlitePlantStoreOptions extends SqliteOpenOptions, Pick<BatchingOptions, 'onCommit'> {
  /** Most plants committed in one transaction; more wait for the next one. Default 1000. */
  maxBatchSize?: number;
  /**
   * Where commits run. `worker` (the default for a `full` store in a file): on a thread of their
   * own, with a connection of their own (same `synchronous`), so that the event loop goes on
   * while a commit waits for its fsync; the next batch gathers meanwhile. `main` (the default
   * for `normal`, whose commits do not wait for the disk: handing batches to a thread would cost
   * more than it saves): on the calling thread. A `:memory:` store always commits on the main
   * thread. Either way, an add resolves only after its COMMIT returned.
   */
  commitThread?: 'main' | 'worker';
}

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
 * Adds are group-committed (GroupCommitStore): each `add` joins a queue that is written in one
 * transaction on the next turn of the event loop, and its promise settles only after COMMIT
 * returned, that is, once the plant is in the database file as `durability` says. So a burst of
 * concurrent requests costs one fsync, not one each. A `full` store in a file commits on a worker
 * thread (see `commitThread`): while one batch waits for its fsync, the next one gathers.
 */
export class SqlitePlantStore extends GroupCommitStore {
  readonly #db: SqliteDatabase;
  readonly #driver: SqliteDriver;
  readonly #insert: SqliteStatement<[bigint, string, string | null]>;
  readonly #select: SqliteStatement<[bigint], PlantRow>;
  readonly #insertBatch: (plants: readonly NewPlant[]) => number[];
  readonly #worker: CommitWorker | undefined;
  /** Set while flush() runs: every batch is committed on this thread. */
  #flushing = false;
  /** The database file and the identity it had when opened; none in memory. */
  readonly #file: FileIdentity | undefined;
  /** Set once the file is found deleted or replaced: it stays so until a restart. */
  #replaced: DatabaseReplacedError | undefined;

  private constructor(
    db: SqliteDatabase,
    driver: SqliteDriver,
    options: SqlitePlantStoreOptions,
    worker: CommitWorker | undefined,
    file: FileIdentity | undefined,
  ) {
    // One batch at a time: a commit on this thread blocks, and the worker takes one at a time.
    super({
      maxBatchSize: options.maxBatchSize ?? 1000,
      maxBatchesInFlight: 1,
      start: 'next-turn',
      distinctIdsInFlight: false,
      onCommit: options.onCommit,
    });
    this.#db = db;
    this.#driver = driver;
    this.#file = file;
    this.#worker = worker;
    this.#insert = db.prepare(INSERT_PLANT);
    this.#select = db.prepare('SELECT id, name, tag FROM plants WHERE id = ?');
    // IMMEDIATE takes the write lock at BEGIN, so a busy database fails before any work is done.
    this.#insertBatch = db.transaction((plants: readonly NewPlant[]) =>
      plants.map((plant) => this.#insert.run(plant.id, plant.name, plant.tag ?? null).changes),
    ).immediate;
  }

  /**
   * Opens (creating if needed) and migrates the database (open-sqlite.ts), and starts its commit
   * thread. Throws DatabaseOpenError, having changed nothing, when the file is not a SQLite
   * database, belongs to something else, comes from a newer plants, is locked, or cannot be written.
   */
  static open(file: string, options: SqlitePlantStoreOptions): SqlitePlantStore {
    const { db, driver, identity } = openSqlite(file, options);
    try {
      const commitThread = options.commitThread ?? (options.durability === 'full' ? 'worker' : 'main');
      const worker =
        commitThread === 'worker' && !inMemory(file)
          ? new CommitWorker({
              file,
              driver,
              insertSql: INSERT_PLANT,
              busyTimeoutMs: options.busyTimeoutMs ?? 5000,
              synchronous: options.durability === 'full' ? 'FULL' : 'NORMAL',
            })
          : undefined;
      return new SqlitePlantStore(db, driver, options, worker, identity);
    } catch (error) {
      db.close();
      throw describeOpenFailure(error, driver, file);
    }
  }

  /**
   * Commits every queued add now, on this thread, after the batch the worker has in flight (if
   * any) is done. Blocking. The server calls it at close; tests may call it too.
   */
  override flush(): void {
    this.#flushing = true;
    try {
      this.#worker?.settle();
      this.pump();
    } finally {
      this.#flushing = false;
    }
  }

  /** On the worker when it is up and free to take it, else here (blocking); a file replaced meanwhile takes nothing. */
  protected override commitBatch(batch: PendingAdd[], done: (outcome: BatchOutcome) => void): void {
    const worker = this.#worker;
    const replaced = this.#fileReplaced();
    if (replaced !== undefined) {
      done({ error: replaced });
    } else if (worker?.ready === true && !this.#flushing && !this.closed) {
      worker.send(plantColumns(batch), (outcome) => done(this.#described(outcome)));
    } else {
      let outcome: BatchOutcome;
      try {
        outcome = { added: this.#insertBatch(batch.map((pending) => pending.plant)) };
      } catch (error) {
        outcome = { error };
      }
      done(this.#described(outcome));
    }
  }

  #described(outcome: BatchOutcome): BatchOutcome {
    if (!('error' in outcome)) return outcome;
    return {
      error: describeWriteFailure(outcome.error, this.#driver, 'storing this plant, which may or may not be stored'),
    };
  }

  /**
   * Resolves when the store can serve: open, its database answering, its schema the one this
   * plants migrated to (another program may have changed it since). Rejects with
   * StoreClosedError once closed, StoreUnavailableError otherwise. Cheap (one pragma read):
   * `/readyz` asks it every time.
   */
  async check(): Promise<void> {
    if (this.closed) throw new StoreClosedError();
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
    if (this.closed) throw new StoreClosedError();
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
    if (this.closed) throw new StoreClosedError();
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
    return this.#worker?.ready === true && !this.closed ? 'worker' : 'main';
  }

  get driver(): SqliteDriverName {
    return this.#driver.name;
  }

  protected override release(): void {
    // The worker's connection first: the last one to close checkpoints the WAL and removes it.
    this.#worker?.close();
    this.#db.close();
  }
}

function fromRow(row: PlantRow): NewPlant {
  return row.tag === null ? { id: row.id, name: row.name } : { id: row.id, name: row.name, tag: row.tag };
}

/** A batch as the worker takes it: column by column, the ids in a typed array. */
function plantColumns(batch: readonly PendingAdd[]): PlantColumns {
  const ids = new BigInt64Array(batch.length);
  const names: string[] = [];
  const tags: Array<string | null> = [];
  for (const [index, { plant }] of batch.entries()) {
    ids[index] = plant.id;
    names.push(plant.name);
    tags.push(plant.tag ?? null);
  }
  return { ids, names, tags };
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
