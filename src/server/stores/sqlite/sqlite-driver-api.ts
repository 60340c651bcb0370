/** The part of better-sqlite3's API the store uses, which node-sqlite-driver.ts provides over `node:sqlite`. */
export interface SqliteStatement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  run(...params: BindParameters): { changes: number };
  get(...params: BindParameters): Result | undefined;
  all(...params: BindParameters): Result[];
  pluck(): SqliteStatement<BindParameters, unknown>;
}

export interface SqliteDatabase {
  prepare<BindParameters extends unknown[] = unknown[], Result = unknown>(
    sql: string,
  ): SqliteStatement<BindParameters, Result>;
  exec(sql: string): void;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<Args extends unknown[], Result>(
    fn: (...args: Args) => Result,
  ): ((...args: Args) => Result) & { immediate: (...args: Args) => Result };
  defaultSafeIntegers(on?: boolean): unknown;
  close(): void;
}

export interface SqliteDatabaseClass {
  new (file: string, options?: { timeout?: number; fileMustExist?: boolean }): SqliteDatabase;
}

export interface SqliteErrorClass {
  new (message: string, code: string): Error & { code: string };
}

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

export interface SqliteDriver {
  name: SqliteDriverName;
  Database: SqliteDatabaseClass;
  SqliteError: SqliteErrorClass;
  /** CommonJS source that defines `Database` in the commit worker's thread. */
  workerPrelude: string;
}
