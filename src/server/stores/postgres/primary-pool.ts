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

const POOL_CONFIG: pg.PoolConfig = {
  max: 8, // reads, deletes and batches share them
  connectionTimeoutMillis: 5000,
  idleTimeoutMillis: 30_000,
  // A network cut that sends nothing back would otherwise hold a statement for the OS's TCP time-outs (hours).
  query_timeout: 30_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  application_name: 'plants serve',
  // int8 as BigInt for this pool only (pg's global setTypeParser would change every pool in the process).
  types: { getTypeParser: bigintTypeParser },
};

const INT8 = 20;
const INT8_ARRAY = 1016;

function bigintTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8) return (value: string) => BigInt(value);
  if (oid === INT8_ARRAY) {
    const parseArray = pg.types.getTypeParser(INT8_ARRAY as Parameters<typeof pg.types.getTypeParser>[0], 'text');
    return (value: string) =>
      (parseArray(value) as Array<string | null>).map((item) => (item === null ? null : BigInt(item)));
  }
  return pg.types.getTypeParser(oid as Parameters<typeof pg.types.getTypeParser>[0], format ?? 'text') as (
    value: string,
  ) => unknown;
}

const FIRST_BACKOFF_MS = 50;
/** A promoted standby is found within about that. */
const MAX_BACKOFF_MS = 500;
const PROBE_TIMEOUT_MS = 2000;
/** A new connection is handed out only if the hosts were looked at this recently. */
const VERIFIED_FOR_MS = 1000;

/** Retry-After while no server takes writes: a promotion and the search after it take about a second. */
export const NO_PRIMARY_RETRY_AFTER_SECONDS = 2;

export class NoPrimaryError extends StoreUnavailableError {
  constructor(readonly reason: string) {
    super('no database server takes writes just now (failover under way?); try again shortly', {
      retryAfterSeconds: NO_PRIMARY_RETRY_AFTER_SECONDS,
    });
  }
}

export class NoPrimaryAtStartError extends Error {
  constructor(
    reason: string,
    readonly probes: readonly HostProbe[],
  ) {
    super(reason);
    this.name = 'NoPrimaryAtStartError';
  }
}

/** release(error) when a statement on it failed. */
export interface Lease {
  client: pg.PoolClient;
  release(error?: unknown): void;
}

interface Generation {
  address: PostgresHost;
  pool: pg.Pool;
}

/**
 * The pool of connections to the server written to: node-postgres knows one host per pool (node-postgres#1470),
 * so a new pool when another server is chosen. With one host and no target_session_attrs nothing is probed.
 * Otherwise every host is probed at start and whenever the chosen server is lost, and a fresh connection is
 * handed out only once the hosts were looked at within VERIFIED_FOR_MS, so that a former primary restarted as it
 * was is not written to.
 */
export class PrimaryPool {
  readonly #options: PrimaryPoolOptions;
  readonly #checksRole: boolean;
  readonly #memory: ClusterMemory = { timeline: 0 };
  #current: Generation | undefined;
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

  noPrimary(): NoPrimaryError {
    return new NoPrimaryError(this.#reason);
  }

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
        // The server may have restarted since it was chosen: look again (one search shared).
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
          client.release(true);
          this.#lost(generation, error);
        },
      };
    }
  }

  /** A statement got no answer for long: the server may be split off, a standby promoted. */
  suspect(): void {
    if (this.#checksRole && this.#current !== undefined) void this.#search(false);
  }

  /** Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const generation = this.#current;
    this.#current = undefined;
    if (generation !== undefined) this.#retire(generation);
    await this.#searching?.catch(() => undefined);
    await Promise.all(this.#retired);
  }

  #lost(generation: Generation, error: unknown): void {
    if (!this.#checksRole || this.#current !== generation || !isLoss(error)) return;
    this.#current = undefined;
    this.#reason = `lost ${describeHost(generation.address)} (${oneLine(error)})`;
    this.#retire(generation);
    void this.#search();
  }

  /** Until one qualifies; or, not dropping, once, keeping the current server unless another qualifies. */
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
    // An idle connection whose server went away emits 'error'; unheard, that ends the process.
    pool.on('error', (error) => {
      onBackgroundError?.(error);
      this.#lost(generation, error);
    });
    // So does one that breaks while checked out (pg-pool listens only while it is idle); its statement fails too.
    pool.on('connect', (client) => client.on('error', (error) => onBackgroundError?.(error)));
    this.#current = generation;
    this.#reason = '';
  }

  #retire(generation: Generation): void {
    const ending = generation.pool.end().catch(() => undefined);
    this.#retired.add(ending);
    void ending.finally(() => this.#retired.delete(ending));
  }
}

/** The server written to may be gone or no longer the primary (25006: a demoted primary refusing a write). */
export function isLoss(error: unknown): boolean {
  const state = sqlState(error);
  // Serialization and deadlock retries say the server is there: only the statement lost.
  if (state === '40001' || state === '40P01') return false;
  return (
    error instanceof NoPrimaryError ||
    state === '25006' ||
    isTransientPostgresError(error) ||
    // A pool retired (its server lost) while a statement was on its way to it.
    (error instanceof Error && error.message === 'Cannot use a pool after calling end on the pool')
  );
}
