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
  /** Default 1000. */
  maxBatchSize?: number;
  /**
   * `worker` (the default for `full` in a file): the event loop goes on while a commit waits for its fsync.
   * `main` (the default for `normal`, whose commits do not wait for the disk, so a thread would cost more than it
   * saves). `:memory:` always commits on the main thread.
   */
  commitThread?: 'main' | 'worker';
}

interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/** ON CONFLICT: a taken id must refuse that one plant, not roll back the rest of its batch. */
const INSERT_PLANT = 'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING';

/**
 * The plants in one SQLite file (or `:memory:`). An add settles only after the COMMIT of its batch returned, so
 * in the file as `durability` says; a burst of adds costs one fsync, not one each.
 */
export class SqlitePlantStore extends GroupCommitStore {
  readonly #db: SqliteDatabase;
  readonly #driver: SqliteDriver;
  readonly #insert: SqliteStatement<[bigint, string, string | null]>;
  readonly #select: SqliteStatement<[bigint], PlantRow>;
  readonly #insertBatch: (plants: readonly NewPlant[]) => number[];
  readonly #worker: CommitWorker | undefined;
  #flushing = false;
  readonly #file: FileIdentity | undefined;
  /** Stays set until a restart. */
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

  /** Commits every queued add now, on this thread, after the worker's batch in flight. Blocking. */
  override flush(): void {
    this.#flushing = true;
    try {
      this.#worker?.settle();
      this.pump();
    } finally {
      this.#flushing = false;
    }
  }

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

  /** Cheap (one pragma read): `/readyz` asks it every time. Another program may have changed the schema. */
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

  async page(after: bigint | undefined, limit: number): Promise<NewPlant[]> {
    const rows =
      after === undefined
        ? this.#db.prepare<[number], PlantRow>('SELECT id, name, tag FROM plants ORDER BY id LIMIT ?').all(limit)
        : this.#db
            .prepare<[bigint, number], PlantRow>('SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?')
            .all(after, limit);
    return rows.map(fromRow);
  }

  /** On this thread: deletes are rare, and SQLite serialises them with the adds. */
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

  /** Synchronous, so nothing of a half-replaced table is ever read. */
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
   * A file deleted or replaced (a restore, a `mv`): our connections would go on committing into an unlinked inode,
   * acknowledged and then lost at the next start. One stat() a commit.
   */
  #fileReplaced(): DatabaseReplacedError | undefined {
    if (this.#replaced !== undefined || this.#file === undefined) return this.#replaced;
    const now = statSync(this.#file.path, { throwIfNoEntry: false });
    if (now === undefined || now.dev !== this.#file.dev || now.ino !== this.#file.ino) {
      this.#replaced = new DatabaseReplacedError(this.#file.path);
    }
    return this.#replaced;
  }

  /** `synchronous` is per connection. */
  get journal(): { journalMode: string; synchronous: string } {
    const levels = ['off', 'normal', 'full', 'extra'];
    const level = Number(this.#db.pragma('synchronous', { simple: true }));
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: levels[level] ?? String(level),
    };
  }

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
 * SQLITE_FULL stops before the write-ahead log holds the commit: nothing stored. An I/O error may have cut off a
 * commit whose pages reached the log, which the next open recovers: outcome unknown.
 */
function describeWriteFailure(error: unknown, driver: SqliteDriver, done: string): unknown {
  if (!(error instanceof driver.SqliteError)) return error;
  if (error.code === 'SQLITE_FULL') return new StorageFullError({ cause: error });
  if (error.code.startsWith('SQLITE_IOERR'))
    return new CommitInterruptedError(`the disk failed (${error.code}) while ${done}`, { cause: error });
  return error;
}
