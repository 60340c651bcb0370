import { inSingleExecutable } from '../../../single-executable.js';
import { nodeSqliteDriver } from './node-sqlite-driver.js';
import { betterSqlite3Driver } from './sqlite-driver.js';
import type { SqliteDriver, SqliteDriverName } from './sqlite-driver-api.js';

/**
 * Which driver a SQLite store uses, decided here and nowhere else: Node's built-in node:sqlite
 * inside the single executable (which can carry no native addon; scripts/build-binary.mjs leaves
 * better-sqlite3 out of it), better-sqlite3 everywhere else (the npm package, as it always was).
 */
export function defaultSqliteDriverName(): SqliteDriverName {
  return inSingleExecutable() ? 'node:sqlite' : 'better-sqlite3';
}

/** The driver `name` names (by default, defaultSqliteDriverName's). */
export function sqliteDriver(name: SqliteDriverName = defaultSqliteDriverName()): SqliteDriver {
  return name === 'node:sqlite' ? nodeSqliteDriver() : betterSqlite3Driver();
}
