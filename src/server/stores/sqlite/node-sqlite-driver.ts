import { existsSync } from 'node:fs';
import type { SqliteDatabaseClass, SqliteDriver, SqliteErrorClass } from './sqlite-driver-api.js';

// better-sqlite3's API over `node:sqlite`, for the single executable. Each function below is self-contained on
// purpose (nothing from outside its body but its parameters and imported types): the commit worker runs their
// source (workerPrelude), as a worker in a single executable cannot load a file of ours.

interface NodeSqlite {
  DatabaseSync: new (
    file: string,
  ) => {
    prepare(sql: string): NodeStatement;
    exec(sql: string): void;
    close(): void;
  };
}
interface NodeStatement {
  setReadBigInts(on: boolean): void;
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

type Guarded = <T>(work: () => T) => T;

interface StatementClass {
  new (statement: NodeStatement, safeIntegers: boolean): unknown;
}

function sqliteErrors(): { SqliteError: SqliteErrorClass; guarded: Guarded } {
  // By number (sqlite3.h): node:sqlite gives the number.
  const CODES = (
    'OK ERROR INTERNAL PERM ABORT BUSY LOCKED NOMEM READONLY INTERRUPT IOERR CORRUPT NOTFOUND FULL CANTOPEN ' +
    'PROTOCOL EMPTY SCHEMA TOOBIG CONSTRAINT MISMATCH MISUSE NOLFS AUTH FORMAT RANGE NOTADB'
  ).split(' ');
  class SqliteError extends Error {
    readonly code: string;
    constructor(message: string, code: string) {
      super(message);
      this.name = 'SqliteError';
      this.code = code;
    }
  }
  const translate = (error: unknown): unknown => {
    const { errcode } = (error ?? {}) as { errcode?: unknown };
    if (typeof errcode !== 'number') return error;
    const name = CODES[errcode & 0xff];
    const translated = new SqliteError(
      (error as Error).message,
      name === undefined ? `SQLITE_${errcode}` : `SQLITE_${name}`,
    );
    translated.cause = error;
    return translated;
  };
  const guarded: Guarded = (work) => {
    try {
      return work();
    } catch (error) {
      throw translate(error);
    }
  };
  return { SqliteError, guarded };
}

function statementClass(guarded: Guarded) {
  return class Statement {
    readonly #statement: NodeStatement;
    readonly #pluck: boolean;
    constructor(statement: NodeStatement, safeIntegers: boolean, pluck = false) {
      this.#statement = statement;
      this.#pluck = pluck;
      statement.setReadBigInts(safeIntegers);
    }
    run(...params: unknown[]): { changes: number } {
      return guarded(() => ({ changes: Number(this.#statement.run(...params).changes) }));
    }
    get(...params: unknown[]): unknown {
      const row = guarded(() => this.#statement.get(...params));
      return this.#pluck && row !== undefined ? Object.values(row as object)[0] : row;
    }
    all(...params: unknown[]): unknown[] {
      const rows = guarded(() => this.#statement.all(...params));
      return this.#pluck ? rows.map((row) => Object.values(row as object)[0]) : rows;
    }
    pluck(): Statement {
      return new Statement(this.#statement, true, true);
    }
  };
}

function databaseClass(
  sqlite: NodeSqlite,
  fileExists: (file: string) => boolean,
  { SqliteError, Statement, guarded }: { SqliteError: SqliteErrorClass; Statement: StatementClass; guarded: Guarded },
): SqliteDatabaseClass {
  class Database {
    readonly #db: InstanceType<NodeSqlite['DatabaseSync']>;
    #safeIntegers = false;
    constructor(file: string, options: { timeout?: number; fileMustExist?: boolean } = {}) {
      if (options.fileMustExist && file !== ':memory:' && !fileExists(file)) {
        throw new SqliteError('unable to open database file', 'SQLITE_CANTOPEN');
      }
      this.#db = guarded(() => new sqlite.DatabaseSync(file));
      // busy_timeout as a pragma: DatabaseSync's own `timeout` option is not in every Node 22.
      const timeout = Math.max(0, Math.trunc(options.timeout ?? 5000));
      guarded(() => this.#db.exec(`PRAGMA busy_timeout = ${timeout}`));
    }
    defaultSafeIntegers(on = true): this {
      this.#safeIntegers = on;
      return this;
    }
    prepare(sql: string) {
      return new Statement(
        guarded(() => this.#db.prepare(sql)),
        this.#safeIntegers,
      );
    }
    exec(sql: string): this {
      guarded(() => this.#db.exec(sql));
      return this;
    }
    pragma(sql: string, options: { simple?: boolean } = {}): unknown {
      const statement = this.prepare(`PRAGMA ${sql}`) as { pluck(): { get(): unknown }; all(): unknown[] };
      return options.simple ? statement.pluck().get() : statement.all();
    }
    /** The store never nests them. */
    transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result) {
      const inMode =
        (begin: string) =>
        (...args: Args): Result => {
          this.exec(begin);
          try {
            const result = fn(...args);
            this.exec('COMMIT');
            return result;
          } catch (error) {
            try {
              this.exec('ROLLBACK');
            } catch {
              // SQLite rolled it back itself (a full disk, say): nothing is left to undo.
            }
            throw error;
          }
        };
      return Object.assign(inMode('BEGIN'), { immediate: inMode('BEGIN IMMEDIATE') });
    }
    close(): void {
      guarded(() => this.#db.close());
    }
  }
  return Database as unknown as SqliteDatabaseClass;
}

const workerPrelude = `const { SqliteError, guarded } = (${sqliteErrors})();
const Database = (${databaseClass})(require('node:sqlite'), require('node:fs').existsSync, {
  SqliteError,
  Statement: (${statementClass})(guarded),
  guarded,
});
`;

let textChecked = false;

/** Node 22's node:sqlite reads text back only up to its first U+0000, which a name may hold: refused there. */
export function nodeSqliteDriver(): SqliteDriver {
  const sqlite = process.getBuiltinModule('node:sqlite') as NodeSqlite;
  if (!textChecked) {
    const db = new sqlite.DatabaseSync(':memory:');
    try {
      const row = db.prepare('SELECT char(0) AS text').get() as { text: string };
      if (row.text.length !== 1) {
        throw new Error(
          `node:sqlite of this Node (${process.version}) reads text only up to its first U+0000: plants' node:sqlite driver needs Node 24 or newer`,
        );
      }
    } finally {
      db.close();
    }
    textChecked = true;
  }
  const { SqliteError, guarded } = sqliteErrors();
  const Database = databaseClass(sqlite, existsSync, { SqliteError, Statement: statementClass(guarded), guarded });
  return { name: 'node:sqlite', Database, SqliteError, workerPrelude };
}
