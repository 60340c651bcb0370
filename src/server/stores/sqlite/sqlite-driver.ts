import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabaseClass, SqliteDriver, SqliteErrorClass } from './sqlite-driver-api.js';

const require = createRequire(import.meta.url);

/** The resolved file of better-sqlite3, for a worker thread or a child process to load the same. */
export const driverPath: string = require.resolve('better-sqlite3');

export const Database = require(driverPath) as typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;

export function betterSqlite3Driver(): SqliteDriver {
  return {
    name: 'better-sqlite3',
    Database: Database as unknown as SqliteDatabaseClass,
    SqliteError: Database.SqliteError as unknown as SqliteErrorClass,
    workerPrelude: `const Database = require(${JSON.stringify(driverPath)});\n`,
  };
}
