import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { inSingleExecutable } from '../../../single-executable.js';
import { DatabaseOpenError } from '../store-errors.js';
import { nodeSqliteDriver } from './node-sqlite-driver.js';
import { betterSqlite3Driver } from './sqlite-driver.js';
import type { SqliteDatabase, SqliteDriver, SqliteDriverName } from './sqlite-driver-api.js';
import { migrate, PLANT_MIGRATIONS } from './sqlite-migrations.js';

/**
 * SQLite's `synchronous`, in WAL mode. `full` fsyncs the WAL at every commit: an acknowledged plant survives power
 * loss. `normal` fsyncs only at checkpoints: a plant survives `kill -9`, but a power cut may lose the last commits.
 */
export type Durability = 'full' | 'normal';

export interface SqliteOpenOptions {
  durability: Durability;
  /** Default 5000. The wait blocks the server, but only when some other program writes to our database file. */
  busyTimeoutMs?: number;
  driver?: SqliteDriverName;
}

export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
}

type Fail = (message: string, cause?: unknown, hints?: readonly string[]) => DatabaseOpenError;

/** The single executable can carry no native addon. */
export function defaultSqliteDriverName(): SqliteDriverName {
  return inSingleExecutable() ? 'node:sqlite' : 'better-sqlite3';
}

export function sqliteDriver(name: SqliteDriverName = defaultSqliteDriverName()): SqliteDriver {
  return name === 'node:sqlite' ? nodeSqliteDriver() : betterSqlite3Driver();
}

export function inMemory(file: string): boolean {
  return file === ':memory:' || file === '';
}

/** Throws DatabaseOpenError, having changed nothing, for a file it will not use. */
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

function checkWritable(file: string, fail: Fail): void {
  // better-sqlite3 says only "unable to open database file" for these; name the folder instead.
  const folder = path.dirname(path.resolve(file));
  if (!existsSync(folder)) throw fail(`cannot open database ${file}: the folder ${folder} does not exist`);
  if (!statSync(folder).isDirectory()) throw fail(`cannot open database ${file}: ${folder} is not a folder`);
  // SQLite opens a file it cannot write read-only without a word (access() also sees chattr +i, which stops root).
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
