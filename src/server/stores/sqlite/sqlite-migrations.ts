import type { SqliteDatabase } from './sqlite-driver-api.js';

export type MigrationDatabase = Pick<SqliteDatabase, 'exec' | 'pragma' | 'transaction'>;

/** Step `version` brings a database from `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  up(db: MigrationDatabase): void;
}

/** Append new steps, never edit old ones: databases in the field have run them. */
export const PLANT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'create the plants table',
    up(db) {
      // The 64-bit rowid holds every int64 exactly; STRICT refuses a value of the wrong type instead of coercing it.
      db.exec('CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT NULL) STRICT');
    },
  },
];

/** BEGIN IMMEDIATE even with nothing to do: a database another process holds is refused now, not at every add. */
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
