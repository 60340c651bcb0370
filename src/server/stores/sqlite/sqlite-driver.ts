import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabaseClass, SqliteDriver, SqliteErrorClass } from './sqlite-driver-api.js';

/**
 * The better-sqlite3 package for the running Node: `better-sqlite3-napi` (13.x) on Node 22 and
 * newer, `better-sqlite3` (12.x) on Node 20.
 *
 * 12.x wraps its databases and statements in `node::ObjectWrap`, whose header gained per-object
 * cleanup hooks in Node 24.19 (and 26): built against those headers, an object that V8 collects
 * while no JavaScript context is entered aborts the whole process ("Assertion failed: (env) !=
 * nullptr" in RemoveEnvironmentCleanupHook, nodejs/node#65446, open for every 24.x). A server
 * dies at a random moment after preparing a statement it then drops; vitest reports it as
 * "Worker exited unexpectedly". 13.x is built on node-addon-api instead and ships its binaries
 * in the package, but it needs Node 22 (it crashes on 20), where 12.x has no such hook.
 */
const driverModule = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The resolved file of driverModule, for a worker thread or a child process to load the same. */
export const driverPath: string = require.resolve(driverModule);

export const Database = require(driverPath) as typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;

/** better-sqlite3 as the store's driver (sqlite-driver-api.ts): the npm package's. */
export function betterSqlite3Driver(): SqliteDriver {
  return {
    name: 'better-sqlite3',
    Database: Database as unknown as SqliteDatabaseClass,
    SqliteError: Database.SqliteError as unknown as SqliteErrorClass,
    workerPrelude: `const Database = require(${JSON.stringify(driverPath)});\n`,
  };
}
