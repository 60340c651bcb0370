import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { NewPlant } from '../../../schema/plant.js';
import { type BatchingOptions, type BatchOutcome, GroupCommitStore, type PendingAdd } from '../group-commit-store.js';
import { OutcomeUnknownError, StoreClosedError, StoreUnavailableError } from '../store-errors.js';
import { openPostgres } from './open-postgres.js';
import { isTransientPostgresError, sqlState } from './postgres-errors.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { isLoss, type Lease, NoPrimaryError, type PrimaryPool, type PrimaryPoolOptions } from './primary-pool.js';

export interface PostgresPlantStoreOptions extends PrimaryPoolOptions, Pick<BatchingOptions, 'onCommit'> {
  /**
   * How long a batch's adds wait for an answer before they are answered AddOutcomeUnknownError while the
   * statement goes on: a network that swallows packets sends no error for up to the statement time-out (30 s).
   * Default 5 000.
   */
  stallMs?: number;
}

/** Most adds in one INSERT; more wait for the next. 1000: CockroachDB's advice too. */
const MAX_BATCH_SIZE = 1000;
/** INSERT statements in flight at once: one on the wire while the next gathers. */
const MAX_BATCHES_IN_FLIGHT = 2;
/**
 * How long a batch cut off after it was sent is sent again before its adds are answered AddOutcomeUnknownError:
 * long enough for a restart to come back, short enough that no client waits on a database that stays away.
 */
const RESEND_WINDOW_MS = 5000;
/** How long adds are refused at once (503) after the database was found unreachable. */
const COOL_DOWN_MS = 250;

/** name and tag are stored as UTF-8 bytes (bytea). */
interface StoredRow {
  id: bigint;
  name: Buffer;
  tag: Buffer | null;
}

/**
 * One autocommitted statement a batch: ids as digit strings (never a JS number); ON CONFLICT refuses a taken id,
 * not the statement. Rows go in id order so that two instances inserting overlapping ids lock them in the same
 * order instead of deadlocking.
 */
const INSERT_BATCH = `INSERT INTO plants (id, name, tag)
SELECT id, name, tag FROM unnest($1::int8[], $2::bytea[], $3::bytea[]) AS batch (id, name, tag) ORDER BY id
ON CONFLICT (id) DO NOTHING RETURNING id`;
const SELECT_IDS = 'SELECT id, name, tag FROM plants WHERE id = ANY($1::int8[])';

/** An add whose batch was sent, then cut off, and not settled by resending: it may or may not be committed. */
export class AddOutcomeUnknownError extends OutcomeUnknownError {
  constructor(cause: unknown) {
    super(
      'the database went away while storing this plant, which may or may not be stored; once it is back, GET /plants/{id} tells',
      { cause },
    );
  }
}

/**
 * The plants in a PostgreSQL table. Adds that arrive while a statement is on the wire go together in the next
 * one, so a burst costs a few round trips. No two adds of one id are in flight from this instance at once, so
 * that a batch sent again cannot mistake another add for its own.
 *
 * A batch whose connection broke once sent may have been committed: it is sent again while the database comes
 * back (ON CONFLICT makes that safe, on a new primary too), and an id then found stored with exactly what was
 * sent counts as its own. While a batch is resent or stalled, and for COOL_DOWN_MS after the database was
 * unreachable, other adds are refused at once rather than each waiting for a connection.
 */
export class PostgresPlantStore extends GroupCommitStore {
  readonly #primary: PrimaryPool;
  readonly #stallMs: number;
  #unavailableUntil = 0;
  #batchesResending = 0;

  private constructor(primary: PrimaryPool, options: PostgresPlantStoreOptions) {
    super({
      maxBatchSize: MAX_BATCH_SIZE,
      maxBatchesInFlight: MAX_BATCHES_IN_FLIGHT,
      start: 'at-once',
      distinctIdsInFlight: true,
      onCommit: options.onCommit,
    });
    this.#primary = primary;
    this.#stallMs = options.stallMs ?? 5000;
  }

  static async open(options: PostgresPlantStoreOptions): Promise<PostgresPlantStore> {
    return new PostgresPlantStore(await openPostgres(options), options);
  }

  protected override refuseAdd(): unknown {
    if (this.#unavailableUntil <= Date.now() && this.#batchesResending === 0) return undefined;
    return this.#primary.current === undefined ? this.#primary.noPrimary() : refusal();
  }

  protected override commitBatch(batch: PendingAdd[], done: (outcome: BatchOutcome) => void): void {
    void this.#commit(batch).then(done, (error: unknown) => done({ error }));
  }

  async #commit(batch: PendingAdd[]): Promise<BatchOutcome> {
    const columns = batchColumns(batch.map((pending) => pending.plant));
    let sent = false;
    let deadline: number | undefined;
    let resending = false;
    const refuseWhileResending = (cause: unknown) => {
      if (resending) return;
      // Adds behind this batch would only wait for it: refuse them now (never sent) until it settles.
      resending = true;
      this.#batchesResending += 1;
      this.refuseQueued(() => refusal(cause));
    };
    // Answer the adds (a late result is ignored: a promise settles once); the statement runs on.
    const stall = setTimeout(() => {
      const cause = new Error(`no answer from the database within ${this.#stallMs} ms`);
      refuseWhileResending(cause);
      // A server that does not answer may be split off, waiting for a standby since promoted.
      this.#primary.suspect();
      // Still waiting for a connection: not sent, so certainly not stored.
      for (const pending of batch) {
        pending.reject(sent ? new AddOutcomeUnknownError(cause) : new StoreUnavailableError(undefined, { cause }));
      }
    }, this.#stallMs);
    try {
      for (let attempt = 1; ; attempt++) {
        let lease: Lease | undefined;
        try {
          lease = await this.#primary.connect();
          sent = true;
          const inserted = await lease.client.query<{ id: bigint }>(INSERT_BATCH, columns);
          const added = new Set(inserted.rows.map((row) => row.id));
          let ours = new Set<bigint>();
          if (attempt > 1 && added.size < batch.length)
            ours = await this.#ownEarlierCommits(lease.client, batch, added);
          lease.release();
          lease = undefined;
          this.#unavailableUntil = 0;
          return { added: batch.map(({ plant }) => added.has(plant.id) || ours.has(plant.id)) };
        } catch (error) {
          lease?.release(error);
          if (!isRetryable(error)) {
            // This statement rolled back, but an earlier attempt, cut off on the wire, may have committed.
            return { error: attempt > 1 ? new AddOutcomeUnknownError(error) : error };
          }
          // Told to retry (serialization, deadlock): the database is there, only this statement lost.
          const state = sqlState(error);
          const away = state !== '40001' && state !== '40P01';
          if (away) this.#unavailableUntil = Date.now() + COOL_DOWN_MS;
          if (!sent) return { error: refusal(error) };
          if (away) refuseWhileResending(error);
          deadline ??= Date.now() + RESEND_WINDOW_MS;
          if (Date.now() >= deadline) return { error: new AddOutcomeUnknownError(error) };
          // Short waits: a restarted PostgreSQL takes connections again within about a second.
          await sleep(Math.min(500, 50 * 2 ** Math.min(attempt, 4), deadline - Date.now()) * (0.5 + Math.random() / 2));
        }
      }
    } finally {
      clearTimeout(stall);
      if (resending) this.#batchesResending -= 1;
    }
  }

  async #ownEarlierCommits(client: pg.PoolClient, batch: PendingAdd[], added: Set<bigint>): Promise<Set<bigint>> {
    const missing = batch.filter((pending) => !added.has(pending.plant.id));
    // A second statement, so a fresh snapshot: it sees rows committed after the INSERT began.
    const { rows } = await client.query<StoredRow>(SELECT_IDS, [missing.map((pending) => pending.plant.id.toString())]);
    const stored = new Map(rows.map((row) => [row.id, row]));
    const ours = new Set<bigint>();
    for (const { plant } of missing) {
      const row = stored.get(plant.id);
      if (row === undefined) continue;
      const found = fromRow(row);
      if (found.name === plant.name && found.tag === plant.tag) ours.add(plant.id);
    }
    return ours;
  }

  async get(id: bigint): Promise<NewPlant | undefined> {
    const { rows } = await this.#read<StoredRow>('SELECT id, name, tag FROM plants WHERE id = $1', [id.toString()]);
    const row = rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  async page(after: bigint | undefined, limit: number): Promise<NewPlant[]> {
    const { rows } =
      after === undefined
        ? await this.#read<StoredRow>('SELECT id, name, tag FROM plants ORDER BY id LIMIT $1', [limit])
        : await this.#read<StoredRow>('SELECT id, name, tag FROM plants WHERE id > $1 ORDER BY id LIMIT $2', [
            after.toString(),
            limit,
          ]);
    return rows.map(fromRow);
  }

  async #connect(): Promise<Lease> {
    try {
      return await this.#primary.connect();
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  async remove(id: bigint): Promise<boolean> {
    if (this.closed) throw new StoreClosedError();
    const lease = await this.#connect();
    try {
      const result = await lease.client.query('DELETE FROM plants WHERE id = $1', [id.toString()]);
      lease.release();
      return result.rowCount === 1;
    } catch (error) {
      lease.release(error);
      throw changeFailure(
        error,
        'deleting this plant, which may or may not be deleted; once it is back, GET /plants/{id} tells',
      );
    }
  }

  /** EXCLUSIVE: reads go on and see the old plants, never a mix; writes of any instance wait. */
  async replaceAll(plants: readonly NewPlant[]): Promise<void> {
    if (this.closed) throw new StoreClosedError();
    await this.whenIdle();
    const lease = await this.#connect();
    const { client } = lease;
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE plants IN EXCLUSIVE MODE');
      await client.query('DELETE FROM plants');
      for (let start = 0; start < plants.length; start += MAX_BATCH_SIZE) {
        await client.query(INSERT_BATCH, batchColumns(plants.slice(start, start + MAX_BATCH_SIZE)));
      }
      await client.query('COMMIT');
      lease.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      lease.release(error);
      throw changeFailure(error, 'resetting the store, which may or may not be reset');
    }
  }

  async check(): Promise<void> {
    if (this.closed) throw new StoreUnavailableError('the store is closed');
    const { rows } = await this.#read<{ version: number | null }>(
      'SELECT max(version) AS version FROM plants_schema',
      [],
    );
    const version = rows[0]?.version ?? 0;
    const latest = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;
    if (version !== latest) {
      throw new StoreUnavailableError(
        `the database schema is at version ${version}; this plants serves version ${latest}`,
      );
    }
  }

  /** Statements that change nothing: any failure to reach the database is a plain 503. */
  async #read<Row extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    if (this.closed) throw new StoreClosedError();
    const lease = await this.#connect();
    try {
      const result = await lease.client.query<Row>(sql, values);
      lease.release();
      return result;
    } catch (error) {
      lease.release(error);
      throw this.#unavailable(error);
    }
  }

  #unavailable(error: unknown): unknown {
    if (!isRetryable(error)) return error;
    this.#unavailableUntil = Date.now() + COOL_DOWN_MS;
    return refusal(error);
  }

  protected override release(): Promise<void> {
    return this.#primary.close();
  }
}

/** The 503 for a request not sent; never a cause's own message, which may say "may be stored". */
function refusal(cause?: unknown): StoreUnavailableError {
  if (cause instanceof NoPrimaryError) return new NoPrimaryError(cause.reason);
  return new StoreUnavailableError(undefined, { cause });
}

function isRetryable(error: unknown): boolean {
  return isLoss(error) || isTransientPostgresError(error);
}

/** A demoted server (25006) rolled back: safe to send again. One cut off once sent may have made the change. */
function changeFailure(error: unknown, doing: string): unknown {
  if (sqlState(error) === '25006') return new StoreUnavailableError(undefined, { cause: error });
  if (isTransientPostgresError(error)) {
    return new OutcomeUnknownError(`the database went away while ${doing}`, { cause: error });
  }
  return error;
}

function batchColumns(plants: readonly NewPlant[]): [string[], Buffer[], Array<Buffer | null>] {
  return [
    plants.map((plant) => plant.id.toString()),
    plants.map((plant) => Buffer.from(plant.name, 'utf8')),
    plants.map((plant) => (plant.tag === undefined ? null : Buffer.from(plant.tag, 'utf8'))),
  ];
}

function fromRow(row: StoredRow): NewPlant {
  // Bytes we wrote from well-formed strings (the schema refuses lone surrogates): decoding is exact.
  const name = row.name.toString('utf8');
  return row.tag === null ? { id: row.id, name } : { id: row.id, name, tag: row.tag.toString('utf8') };
}
