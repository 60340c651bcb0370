import type { SqliteDatabase } from './sqlite-driver-api.js';

/** What a migration uses of a database (a better-sqlite3 Database is one too). */
export type MigrationDatabase = Pick<SqliteDatabase, 'exec' | 'pragma' | 'transaction'>;

/** One step of the schema. Step `version` brings a database from `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(db: MigrationDatabase): void;
}

/**
 * The schema of the store, oldest first; `PRAGMA user_version` records how many have run.
 * Append new steps, never edit old ones: databases in the field have run them.
 */
export const PLANT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'create the plants table',
    up(db) {
      // INTEGER PRIMARY KEY is the 64-bit rowid: the id is stored exactly over the whole int64
      // range. STRICT makes SQLite refuse a value of the wrong type instead of coercing it.
      db.exec('CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT NULL) STRICT');
    },
  },
];

/**
 * Brings the schema up to the last step, each step and its `user_version` in one transaction.
 * BEGIN IMMEDIATE even when there is nothing to do: it proves at start that we can take the
 * write lock, so a database another process holds is refused now rather than failing every add.
 */
export function migrate(db: MigrationDatabase, migrations: readonly Migration[]): { from: number; to: number } {
  const begin = db.transaction(() => Number(db.pragma('user_version', { simple: true })));
  const from = begin.immediate();
  for (const step of migrations) {
    if (step.version <= from) continue;
    db.transaction(() => {
      step.up(db);
      // PRAGMA takes no parameters; the version is an integer of ours, not input.
      db.pragma(`user_version = ${step.version}`);
    }).immediate();
  }
  return { from, to: Math.max(from, migrations.at(-1)?.version ?? 0) };
}
