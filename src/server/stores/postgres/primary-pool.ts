import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { StoreUnavailableError } from '../store-errors.js';
import {
  checksServerRole,
  describeHost,
  type PostgresConnection,
  type PostgresHost,
  tlsOptionsFor,
} from './connection-settings.js';
import { type ClusterMemory, choosePrimary, type HostProbe, probeHost } from './host-selection.js';
import { isTransientPostgresError, oneLine, sqlState } from './postgres-errors.js';

export interface PrimaryPoolOptions {
  connection: PostgresConnection;
  /** Receives errors nobody waits for (an idle connection that broke). */
  onBackgroundError?: (error: unknown) => void;
}

/** The settings of every server's pool; who and where (user, database, host, TLS) come from the connection. */
const POOL_CONFIG: pg.PoolConfig = {
  max: 8, // reads, deletes and batches share them
  connectionTimeoutMillis: 5000,
  idleTimeoutMillis: 30_000,
  // A network cut that sends nothing back would otherwise hold a statement for the OS's
  // TCP time-outs (hours): give up on it (then resend, or 503) and notice idle losses.
  query_timeout: 30_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  application_name: 'plants serve',
  // int8 as BigInt, for this pool only (pg's global setTypeParser would change every pool
  // in the process): ids never pass through a JS number.
  types: { getTypeParser: bigintTypeParser },
};

/** pg's type id of int8, and of int8[]. */
const INT8 = 20;
const INT8_ARRAY = 1016;

/** pg's own parsers, except int8 (and int8[]) as BigInt. */
function bigintTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8) return (value: string) => BigInt(value);
  if (oid === INT8_ARRAY) {
    // pg's own int8[] parser yields digit strings (never numbers): each becomes a BigInt.
    const parseArray = pg.types.getTypeParser(INT8_ARRAY as Parameters<typeof pg.types.getTypeParser>[0], 'text');
    return (value: string) =>
      (parseArray(value) as Array<string | null>).map((item) => (item === null ? null : BigInt(item)));
  }
  return pg.types.getTypeParser(oid as Parameters<typeof pg.types.getTypeParser>[0], format ?? 'text') as (
    value: string,
  ) => unknown;
}

/** First wait between searches that found no primary; doubles up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 50;
/** Longest wait between searches: a promoted standby is found within about that. */
const MAX_BACKOFF_MS = 500;
/** How long one server gets to answer a probe. */
const PROBE_TIMEOUT_MS = 2000;
/** A new connection is handed out only if the hosts were looked at this recently. */
const VERIFIED_FOR_MS = 1000;

/**
 * Retry-After while no server takes writes. Longer than a restart's 1 s: a promotion and the
 * search after it take about a second, so a client retrying a few times (plants add: 3) waits
 * long enough in all for the new primary, and sends fewer requests that cannot succeed meanwhile.
 */
export const NO_PRIMARY_RETRY_AFTER_SECONDS = 2;

/** No server takes writes just now (failover under way, or every host down): 503 with Retry-After. */
export class NoPrimaryError extends StoreUnavailableError {
  constructor(readonly reason: string) {
    super('no database server takes writes just now (failover under way?); try again shortly', {
      retryAfterSeconds: NO_PRIMARY_RETRY_AFTER_SECONDS,
    });
  }
}

/** Serve could not find a server to write to when it started. */
export class NoPrimaryAtStartError extends Error {
  constructor(
    reason: string,
    readonly probes: readonly HostProbe[],
  ) {
    super(reason);
    this.name = 'NoPrimaryAtStartError';
  }
}

/** A connection lent out: give it back with release(), or release(error) when a statement on it failed. */
export interface Lease {
  client: pg.PoolClient;
  release(error?: unknown): void;
}

/** One server's pool, from the moment it was chosen until another is. */
interface Generation {
  address: PostgresHost;
  pool: pg.Pool;
}

/**
 * The pool of connections to the server serve writes to. node-postgres knows one host per
 * pool (node-postgres#1470), so this keeps one pool for the server chosen and makes a new one
 * when another is.
 *
 * With one host and no target_session_attrs it is a plain pool: nothing is probed, and a
 * restarted server is found again by the pool itself. Otherwise every host is probed
 * (host-selection.ts) at start, and again whenever the chosen server is lost: a connection
 * broken or refused, 57P01 admin shutdown, 25006 read-only after a demotion. Until a search
 * finds a server the rule accepts, connect() throws NoPrimaryError at once (503, Retry-After),
 * and searches go on with a back-off of FIRST_BACKOFF_MS doubling to MAX_BACKOFF_MS. A connection
 * the pool opens anew is handed out only once the hosts were looked at within VERIFIED_FOR_MS, so
 * a former primary restarted as it was is not written to through a fresh connection either.
 */
export class PrimaryPool {
  readonly #options: PrimaryPoolOptions;
  readonly #checksRole: boolean;
  readonly #memory: ClusterMemory = { timeline: 0 };
  #current: Generation | undefined;
  /** Why there is no current server, for the log and the start-up error. */
  #reason = 'not searched yet';
  #searching: Promise<void> | undefined;
  #lastSearchEnded = 0;
  readonly #verified = new WeakSet<pg.PoolClient>();
  readonly #retired = new Set<Promise<void>>();
  #closed = false;

  private constructor(options: PrimaryPoolOptions) {
    this.#options = options;
    this.#checksRole = checksServerRole(options.connection);
  }

  /**
   * Chooses the server to write to. With role checks, throws NoPrimaryAtStartError when none
   * qualifies; a single plain host is taken as it is (the first connection tells whether it is there).
   */
  static async open(options: PrimaryPoolOptions): Promise<PrimaryPool> {
    const primary = new PrimaryPool(options);
    if (!primary.#checksRole) {
      primary.#use(options.connection.hosts[0] as PostgresHost);
      return primary;
    }
    const probes = await primary.#probeAll();
    if (!primary.#choose(probes)) throw new NoPrimaryAtStartError(primary.#reason, probes);
    primary.#lastSearchEnded = Date.now();
    return primary;
  }

  get current(): PostgresHost | undefined {
    return this.#current?.address;
  }

  /** The error for "no server takes writes just now", with the reason found. */
  noPrimary(): NoPrimaryError {
    return new NoPrimaryError(this.#reason);
  }

  /** A connection to the server written to; NoPrimaryError while there is none. */
  async connect(): Promise<Lease> {
    for (;;) {
      const generation = this.#current;
      if (generation === undefined) {
        if (this.#closed) throw new StoreUnavailableError('the store is closed');
        void this.#search();
        throw new NoPrimaryError(this.#reason);
      }
      let client: pg.PoolClient;
      try {
        client = await generation.pool.connect();
      } catch (error) {
        this.#lost(generation, error);
        throw error;
      }
      if (this.#checksRole && !this.#verified.has(client)) {
        // A fresh connection: the server may have restarted since it was chosen. Look again
        // (one search shared by every fresh connection), unless that was just done.
        if (Date.now() - this.#lastSearchEnded > VERIFIED_FOR_MS) await this.#search(false);
        if (this.#current !== generation) {
          client.release(true);
          continue;
        }
        this.#verified.add(client);
      }
      return {
        client,
        release: (error?: unknown) => {
          if (error === undefined) return client.release();
          // A connection whose statement failed is not given back for reuse.
          client.release(true);
          this.#lost(generation, error);
        },
      };
    }
  }

  /**
   * A statement got no answer for long: the server may be split off, waiting for a standby
   * that was promoted. Look at the hosts; move only if another qualifies.
   */
  suspect(): void {
    if (this.#checksRole && this.#current !== undefined) void this.#search(false);
  }

  /** Ends every pool; connections lent out end as they are released. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const generation = this.#current;
    this.#current = undefined;
    if (generation !== undefined) this.#retire(generation);
    await this.#searching?.catch(() => undefined);
    await Promise.all(this.#retired);
  }

  /** An error on the current server's pool: if it means the server is lost, drop it and search. */
  #lost(generation: Generation, error: unknown): void {
    if (!this.#checksRole || this.#current !== generation || !isLoss(error)) return;
    this.#current = undefined;
    this.#reason = `lost ${describeHost(generation.address)} (${oneLine(error)})`;
    this.#retire(generation);
    void this.#search();
  }

  /**
   * Probes every host until one qualifies (dropping: the current server is lost, so search until
   * found) or once (not dropping: keep the current server unless another qualifies). One search
   * at a time; callers share it.
   */
  #search(dropping = true): Promise<void> {
    this.#searching ??= (async () => {
      let backoff = FIRST_BACKOFF_MS;
      while (!this.#closed) {
        const probes = await this.#probeAll();
        if (this.#closed) return;
        if (this.#choose(probes)) return;
        if (!dropping && this.#current !== undefined) return;
        dropping = true;
        const current = this.#current;
        if (current !== undefined) {
          this.#current = undefined;
          this.#retire(current);
        }
        await sleep(backoff * (0.5 + Math.random() / 2));
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    })().finally(() => {
      this.#searching = undefined;
      this.#lastSearchEnded = Date.now();
    });
    return this.#searching;
  }

  #probeAll(): Promise<HostProbe[]> {
    const { connection } = this.#options;
    return Promise.all(connection.hosts.map((address) => probeHost(connection, address, PROBE_TIMEOUT_MS)));
  }

  /** Applies the rule to a round of probes; true when a server qualified (now current). */
  #choose(probes: readonly HostProbe[]): boolean {
    const choice = choosePrimary(probes, this.#memory, this.#current?.address);
    if (choice.index === undefined) {
      this.#reason = choice.reason;
      return false;
    }
    this.#memory.systemId = choice.systemId;
    this.#memory.timeline = Math.max(this.#memory.timeline, choice.timeline);
    const address = this.#options.connection.hosts[choice.index] as PostgresHost;
    const current = this.#current;
    if (current !== undefined && current.address.host === address.host && current.address.port === address.port) {
      return true;
    }
    if (current !== undefined) this.#retire(current);
    this.#use(address);
    return true;
  }

  #use(address: PostgresHost): void {
    const { connection, onBackgroundError } = this.#options;
    const pool = new pg.Pool({
      ...POOL_CONFIG,
      user: connection.user,
      password: connection.password,
      database: connection.database,
      host: address.host,
      port: address.port,
      ssl: tlsOptionsFor(connection.sslmode, address.host),
    });
    const generation: Generation = { address, pool };
    // An idle connection whose server went away emits 'error' on the pool; without a listener
    // that would end the process. With role checks it also means the server may be gone.
    pool.on('error', (error) => {
      onBackgroundError?.(error);
      this.#lost(generation, error);
    });
    // A connection that breaks while checked out (a statement on the wire) emits 'error' on its
    // client, where pg-pool listens only while the client is idle: unheard, it ends the process.
    // The statement itself fails too, and that failure is what the store acts on.
    pool.on('connect', (client) => client.on('error', (error) => onBackgroundError?.(error)));
    this.#current = generation;
    this.#reason = '';
  }

  /** Ends a pool no longer written to, in the background: statements still on it finish or fail first. */
  #retire(generation: Generation): void {
    const ending = generation.pool.end().catch(() => undefined);
    this.#retired.add(ending);
    void ending.finally(() => this.#retired.delete(ending));
  }
}

/**
 * Errors that mean the server written to may be gone or no longer the primary: the transient
 * ones (connection lost or refused, 57P01 admin shutdown …) and 25006, a read-only transaction,
 * which a demoted primary answers to a write.
 */
export function isLoss(error: unknown): boolean {
  const state = sqlState(error);
  // Serialization and deadlock retries say the server is there: only the statement lost.
  if (state === '40001' || state === '40P01') return false;
  return (
    error instanceof NoPrimaryError ||
    state === '25006' ||
    isTransientPostgresError(error) ||
    // A pool retired (its server lost) while a statement was on its way to it: the server is gone for us.
    (error instanceof Error && error.message === 'Cannot use a pool after calling end on the pool')
  );
}
