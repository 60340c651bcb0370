import { userInfo } from 'node:os';
import type { PlantStore } from './plant-store.js';
import { isPostgresUrl, type PostgresEnv, redactUrl } from './postgres/connection-settings.js';
import type { SqliteDriverName } from './sqlite/sqlite-driver-api.js';
import type { SqlitePlantStoreOptions } from './sqlite/sqlite-plant-store.js';

// The one place a backend is chosen from --database: a new backend touches its own folder and this.

export const isDatabaseServer: (database: string) => boolean = isPostgresUrl;

export function shownDatabase(database: string): string {
  return isPostgresUrl(database) ? redactUrl(database) : database;
}

/** durability and busyTimeoutMs are SQLite's: PostgreSQL commits as its server is set up to. */
export interface OpenStoreOptions extends Pick<SqlitePlantStoreOptions, 'durability' | 'busyTimeoutMs' | 'onCommit'> {
  /** A `postgres://` URL, a SQLite file (created if missing), a `file:` URL of one, or `:memory:`. */
  database: string;
  postgresEnv?: PostgresEnv;
  sqliteDriver?: SqliteDriverName;
}

/** Each implementation is loaded only when chosen: a server never loads the other backend's driver. */
export async function openPlantStore(options: OpenStoreOptions): Promise<PlantStore> {
  const { database } = options;
  if (isPostgresUrl(database)) {
    const { resolvePostgresConnection } = await import('./postgres/connection-settings.js');
    const { PostgresPlantStore } = await import('./postgres/postgres-plant-store.js');
    return PostgresPlantStore.open({
      connection: resolvePostgresConnection(database, options.postgresEnv, loginName()),
      onCommit: options.onCommit,
    });
  }
  const { SqlitePlantStore } = await import('./sqlite/sqlite-plant-store.js');
  return SqlitePlantStore.open(sqliteFile(database), {
    durability: options.durability,
    busyTimeoutMs: options.busyTimeoutMs,
    onCommit: options.onCommit,
    driver: options.sqliteDriver,
  });
}

/** `file:/abs/path`, `file:///abs/path` or `file:relative` as a path; anything else as it is. */
export function sqliteFile(database: string): string {
  if (!database.startsWith('file:')) return database;
  const rest = database.slice('file:'.length);
  return decodeURIComponent(rest.startsWith('//') ? rest.replace(/^\/\/[^/]*/, '') : rest);
}

/** libpq's default user. */
function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}
