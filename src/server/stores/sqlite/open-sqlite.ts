import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { inSingleExecutable } from '../../../single-executable.js';
import { DatabaseOpenError } from '../store-errors.js';
import { nodeSqliteDriver } from './node-sqlite-driver.js';
import { betterSqlite3Driver } from './sqlite-driver.js';
import type { SqliteDatabase, SqliteDriver, SqliteDriverName } from './sqlite-driver-api.js';
import { migrate, PLANT_MIGRATIONS } from './sqlite-migrations.js';

/**
 * How hard a commit tries to reach the disk (SQLite `synchronous`, always in WAL mode).
 * - `full`: the WAL is fsynced at every commit, so an acknowledged plant survives power loss
 *   and an OS crash. This is the default `plants serve` should pick: a 200 is a promise.
 * - `normal`: the WAL is fsynced only at checkpoints. An acknowledged plant survives the server
 *   process dying (even `kill -9`: the write is in the OS page cache), but a power cut may lose
 *   the last commits. The database is never corrupted either way. Faster on slow disks.
 */
export type Durability = 'full' | 'normal';

export interface SqliteOpenOptions {
  durability: Durability;
  /**
   * How long SQLite waits for a lock another process holds before giving up, at start and at
   * each commit. Default 5000. better-sqlite3 is synchronous, so this wait blocks the server:
   * it only happens when some other program writes to our database file.
   */
  busyTimeoutMs?: number;
  /**
   * The SQLite driver: better-sqlite3 (the npm package's) or Node's node:sqlite (the single
   * executable's); by default as defaultSqliteDriverName decides. The file is the same either way.
   */
  driver?: SqliteDriverName;
}

/** The database file and the identity (device, inode) it had when opened. */
export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
}

type Fail = (message: string, cause?: unknown, hints?: readonly string[]) => DatabaseOpenError;

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

/** Whether `file` names a database in memory rather than a file. */
export function inMemory(file: string): boolean {
  return file === ':memory:' || file === '';
}

/**
 * Opens (creating if needed) and migrates the database. Throws DatabaseOpenError, having
 * changed nothing, when the file is not a SQLite database, belongs to something else, comes
 * from a newer plants, is locked, or cannot be written.
 */
export function openSqlite(file: string, options: SqliteOpenOptions) {
  const fail: Fail = (message, cause, hints) => new DatabaseOpenError(message, { database: file, cause, hints });
  if (!inMemory(file)) checkWritable(file, fail);
  const driver = sqliteDriver(options.driver);
  let db: SqliteDatabase;
  try {
    db = new driver.Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
  } catch (error) {
    throw describeOpenFailure(error, driver, file, fail);
  }
  try {
    db.defaultSafeIntegers(true);
    checkSchema(db, file, fail);
    const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
    if (mode !== 'wal' && mode !== 'memory') throw fail(`database ${file} cannot use a write-ahead log (got ${mode})`);
    db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    migrate(db, PLANT_MIGRATIONS);
    // None in memory.
    let identity: FileIdentity | undefined;
    if (!inMemory(file)) {
      const { dev, ino } = statSync(file);
      identity = { path: path.resolve(file), dev, ino };
    }
    return { db, driver, identity };
  } catch (error) {
    db.close();
    if (error instanceof DatabaseOpenError) throw error;
    throw describeOpenFailure(error, driver, file, fail);
  }
}

/** The folder exists, and the file (if any) and its folder can be written. */
function checkWritable(file: string, fail: Fail): void {
  // better-sqlite3 says only "unable to open database file" for these; name the folder instead.
  const folder = path.dirname(path.resolve(file));
  if (!existsSync(folder)) throw fail(`cannot open database ${file}: the folder ${folder} does not exist`);
  if (!statSync(folder).isDirectory()) throw fail(`cannot open database ${file}: ${folder} is not a folder`);
  // SQLite opens a file it cannot write read-only without a word, and every add would then
  // fail; refuse it now instead (access() also sees what stops root, such as chattr +i).
  for (const [what, target] of [
    ['the file', file],
    ['its folder', folder],
  ] as const) {
    if (what === 'the file' && !existsSync(target)) continue;
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      throw fail(
        `cannot open database ${file}: ${what} cannot be written (${(error as NodeJS.ErrnoException).code})`,
        error,
      );
    }
  }
}

/**
 * Read before writing anything: a file that is not SQLite, or another program's database, must be
 * refused untouched (switching to WAL already rewrites the header).
 */
function checkSchema(db: SqliteDatabase, file: string, fail: Fail): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  const objects = Number(db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get());
  const latest = PLANT_MIGRATIONS.length;
  if (version > latest) {
    throw fail(
      `database ${file} has schema version ${version}, newer than this plants knows (${latest}); refusing to use it`,
      undefined,
      ['Upgrade plants, or point it at another database file.'],
    );
  }
  if (version === 0 && objects > 0) {
    throw fail(`database ${file} is a SQLite database of some other program (it has tables but no plants schema)`);
  }
}

/** Why a database could not be opened, as DatabaseOpenError naming the file and what to try. */
export function describeOpenFailure(
  error: unknown,
  driver: SqliteDriver,
  file: string,
  fail: Fail = (message, cause, hints) => new DatabaseOpenError(message, { database: file, cause, hints }),
): DatabaseOpenError {
  const code = error instanceof driver.SqliteError ? error.code : undefined;
  switch (code) {
    case 'SQLITE_NOTADB':
      return fail(`${file} is not a SQLite database; refusing to use it (the file was left unchanged)`, error);
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return fail(`database ${file} is locked by another process`, error, [
        'Is another `plants serve` using it? Stop it, or use another database file.',
      ]);
    case 'SQLITE_CORRUPT':
      return fail(`database ${file} is damaged (SQLite reports it as corrupt)`, error);
    case 'SQLITE_FULL':
      return fail(`cannot write database ${file}: the disk is full`, error);
    case 'SQLITE_CANTOPEN':
      return fail(`cannot open database ${file}: check that it is a file in a folder you can write to`, error);
    default:
      if (code?.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
        return fail(`cannot write database ${file}: permission denied or read-only`, error);
      }
      return fail(`cannot open database ${file}: ${oneLine(error)}`, error);
  }
}

export function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
