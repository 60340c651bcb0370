/**
 * What the SQLite store asks of a driver: the part of better-sqlite3's API it uses, which
 * better-sqlite3 itself provides and node-sqlite-driver.ts provides over Node's `node:sqlite`.
 * The store file is SQLite's own format either way: one driver's file opens in the other.
 */
export interface SqliteStatement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  run(...params: BindParameters): { changes: number };
  get(...params: BindParameters): Result | undefined;
  all(...params: BindParameters): Result[];
  /** Rows come back as their first column's value. */
  pluck(): SqliteStatement<BindParameters, unknown>;
}

export interface SqliteDatabase {
  prepare<BindParameters extends unknown[] = unknown[], Result = unknown>(
    sql: string,
  ): SqliteStatement<BindParameters, Result>;
  exec(sql: string): void;
  /** `PRAGMA sql`: with `simple`, the first column of the first row; else every row. */
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  /** `fn` in a transaction, as better-sqlite3's transaction(); `.immediate` begins with BEGIN IMMEDIATE. */
  transaction<Args extends unknown[], Result>(
    fn: (...args: Args) => Result,
  ): ((...args: Args) => Result) & { immediate: (...args: Args) => Result };
  /** Integers come back as BigInt. */
  defaultSafeIntegers(on?: boolean): unknown;
  close(): void;
}

export interface SqliteDatabaseClass {
  new (file: string, options?: { timeout?: number; fileMustExist?: boolean }): SqliteDatabase;
}

/** An error SQLite reported, with its result code's name (`SQLITE_BUSY`, `SQLITE_READONLY_DBMOVED`). */
export interface SqliteErrorClass {
  new (message: string, code: string): Error & { code: string };
}

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

export interface SqliteDriver {
  name: SqliteDriverName;
  Database: SqliteDatabaseClass;
  SqliteError: SqliteErrorClass;
  /** CommonJS source that defines `Database` in the commit worker's thread (an eval worker). */
  workerPrelude: string;
}
