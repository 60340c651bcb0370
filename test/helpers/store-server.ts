import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type PlantServerOptions, type RunningPlantServer, startPlantServer } from '../../src/server/start.js';

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export interface StoreServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  /** The one accepted token (unless `tokens` was overridden). */
  token: string;
  /** The SQLite file the server writes. */
  dbPath: string;
  /** The temporary folder holding dbPath; removed by close(). */
  dir: string;
  /** Request-log lines so far. */
  logLines: string[];
  /** Errors behind 500 answers so far. */
  internalErrors: unknown[];
  server: RunningPlantServer;
  /** Closes the server (gracefully) and removes the temporary folder. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the real plant server on 127.0.0.1, port 0, over a new database file in a temporary
 * folder, with TEST_TOKEN accepted. Any option may be overridden.
 */
export async function startStoreServer(overrides: Partial<PlantServerOptions> = {}): Promise<StoreServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plants-server-'));
  const dbPath = path.join(dir, 'plants.db');
  const logLines: string[] = [];
  const internalErrors: unknown[] = [];
  let server: RunningPlantServer;
  try {
    server = await startPlantServer({
      host: '127.0.0.1',
      port: 0,
      database: dbPath,
      tokens: [TEST_TOKEN],
      durability: 'full',
      log: (line) => logLines.push(line),
      onInternalError: (error) => internalErrors.push(error),
      ...overrides,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    token: TEST_TOKEN,
    dbPath,
    dir,
    logLines,
    internalErrors,
    server,
    close() {
      closed ??= server.close().finally(() => rmSync(dir, { recursive: true, force: true }));
      return closed;
    },
  };
}

export interface StoredRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/**
 * Opens a database file with a connection of its own (ids as bigint), the way another program
 * would, runs `read`, and closes it. Works while the server runs (WAL lets readers in) and after.
 */
export function readStoreFile<T>(dbPath: string, read: (db: Database.Database) => T): T {
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
