import type pg from 'pg';
import { sqlState } from './postgres-errors.js';

/** Step `version` brings a database from `version - 1` to `version`. */
export interface PostgresMigration {
  readonly version: number;
  readonly description: string;
  readonly statements: readonly string[];
}

/**
 * Append new steps, never edit old ones. Plain SQL that CockroachDB and YugabyteDB accept too: no sequences, no
 * extensions, no advisory locks.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'create the plants table',
    // bytea, not text: PostgreSQL's text cannot hold U+0000, which the contract allows and SQLite stores.
    statements: ['CREATE TABLE plants (id bigint PRIMARY KEY, name bytea NOT NULL, tag bytea NULL)'],
  },
];

/**
 * A concurrent start, from the losing side: two instances creating the same table race in the catalog (42710:
 * the table's row type), or are told to retry. Rolled back and run again, the loser finds the work done.
 */
const RACE_SQLSTATES = new Set(['23505', '42P07', '42710', '40001', '40P01']);
const MAX_ATTEMPTS = 8;

export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly latest: number,
  ) {
    super(`the database has plants schema version ${found}, newer than this plants knows (${latest})`);
    this.name = 'SchemaTooNewError';
  }
}

/** Safe when several instances start at once on an empty database: the wait is random, so they do not collide again. */
export async function migratePostgres(client: pg.ClientBase): Promise<void> {
  const latest = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS plants_schema (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const from = await currentVersion(client);
      if (from > latest) throw new SchemaTooNewError(from, latest);
      for (const step of POSTGRES_MIGRATIONS) {
        if (step.version <= (await currentVersion(client))) continue;
        await client.query('BEGIN');
        try {
          for (const statement of step.statements) await client.query(statement);
          await client.query('INSERT INTO plants_schema (version, description) VALUES ($1, $2)', [
            step.version,
            step.description,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
      return;
    } catch (error) {
      const state = sqlState(error);
      if (attempt >= MAX_ATTEMPTS || state === undefined || !RACE_SQLSTATES.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}

async function currentVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM plants_schema');
  return rows[0]?.version ?? 0;
}
