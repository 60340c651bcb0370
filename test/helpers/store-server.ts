import type { RunningPlantServer } from '../../src/server/start.js';
import { isDatabaseServer } from '../../src/server/stores/open-store.js';
import { Database } from '../../src/server/stores/sqlite/sqlite-driver.js';
import { launchStore, type ServerExtras } from '../../src/testing/launch-store.js';
import { checkStoreOptions } from '../../src/testing/store-options.js';
import type { StoreOptions } from '../../src/testing/store-types.js';
import { type FixtureScope, suiteFixture } from './fixture.js';
import { type StoreBackend, type StoredRow, type StoreLocation, sqliteBackend } from './store-backends.js';

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export interface StoreServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  /** The one accepted token. */
  token: string;
  /** Which store it runs on. */
  backend: StoreBackend['name'];
  /** The SQLite file the server writes, or the PostgreSQL URL. */
  dbPath: string;
  /** The plants table as the database holds it, read over a connection of its own. */
  readPlants(): Promise<StoredRow[]>;
  /** Request-log lines so far. */
  logLines: string[];
  /** Errors behind 500 answers so far. */
  internalErrors: unknown[];
  server: RunningPlantServer;
  /** Closes the server (gracefully) and removes its store. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * startStore's options (plants/testing) but the token, which is TEST_TOKEN, and the server's own
 * options besides; `database` (a file path or a URL) in place of the backend's new store.
 */
export type StoreServerOptions = Omit<StoreOptions, 'token' | 'db' | 'database'> &
  ServerExtras & { backend?: StoreBackend; database?: string };

/**
 * Starts the real plant server as plants/testing's startStore does, on 127.0.0.1, port 0, over a
 * new store of `backend` (default: a SQLite file in a temporary folder), with TEST_TOKEN
 * accepted, its request log and internal errors kept. Any option may be overridden.
 */
export async function startStoreServer(overrides: StoreServerOptions = {}): Promise<StoreServer> {
  const { backend = sqliteBackend, seed, delay, faults, faultSeed, allowReset, database, ...extras } = overrides;
  const location: StoreLocation = await backend.create();
  const dbPath = database ?? location.database;
  const logLines: string[] = [];
  const internalErrors: unknown[] = [];
  let store: Awaited<ReturnType<typeof launchStore>>;
  try {
    const checked = await checkStoreOptions({
      token: TEST_TOKEN,
      ...(isDatabaseServer(dbPath) ? { database: dbPath } : { db: dbPath }),
      seed,
      delay,
      faults,
      faultSeed,
      allowReset,
    });
    store = await launchStore(checked, {
      log: (line) => logLines.push(line),
      onInternalError: (error) => internalErrors.push(error),
      ...extras,
    });
  } catch (error) {
    await location.remove();
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    url: store.url,
    port: store.server.port,
    token: store.token,
    backend: backend.name,
    dbPath,
    readPlants: () => location.readPlants(),
    logLines,
    internalErrors,
    server: store.server,
    close() {
      closed ??= store.close().finally(() => location.remove());
      return closed;
    },
  };
}

export type { StoredRow } from './store-backends.js';

/**
 * The number of the last request a store (in-process or `plants serve`) answered, from its journal
 * (GET /_serve/journal, which is itself never journaled): unchanged, nothing was sent to it.
 */
export async function lastJournalSeq(store: { url: string; token: string }): Promise<number> {
  const answer = await fetch(`${store.url}/_serve/journal`, { headers: { authorization: `Bearer ${store.token}` } });
  return ((await answer.json()) as { lastSeq: number }).lastSeq;
}

/**
 * Opens a database file with a connection of its own (ids as bigint), the way another program
 * would, runs `read`, and closes it. Works while the server runs (WAL lets readers in) and after.
 */
export function readStoreFile<T>(dbPath: string, read: (db: Database) => T): T {
  const db = new Database(dbPath, { fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    return read(db);
  } finally {
    db.close();
  }
}

/** The plants table, straight from the file. */
export function readStoredPlants(dbPath: string): StoredRow[] {
  return readStoreFile(dbPath, (db) => db.prepare<[], StoredRow>('SELECT id, name, tag FROM plants ORDER BY id').all());
}

export type TestStoreOptions = StoreServerOptions & {
  /** 'file' (default): one store for the file or describe it is declared in; 'test': a new one for each test. */
  scope?: FixtureScope;
};

/**
 * A real plant store on a loopback port for the tests of the file or describe it is declared in
 * (startStoreServer, started in a beforeAll or beforeEach this registers, closed and removed after):
 *
 *   const store = useTestStore();
 *   const user = useTempUser(store);
 */
export function useTestStore({ scope = 'file', ...options }: TestStoreOptions = {}): StoreServer {
  return suiteFixture(
    scope,
    () => startStoreServer(options),
    (store) => store.close(),
  );
}
