import type pg from 'pg';
import { sqlState } from './postgres-errors.js';

/** One step of the schema. Step `version` brings a database from `version - 1` to `version`. */
export interface PostgresMigration {
  readonly version: number;
  readonly description: string;
  /** Statements run in the step's transaction. */
  readonly statements: readonly string[];
}

/**
 * The schema on PostgreSQL, oldest first; the table `plants_schema` records the steps run.
 * Append new steps, never edit old ones. Plain SQL that CockroachDB and YugabyteDB accept too:
 * no sequences, no extensions, no advisory locks.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'create the plants table',
    // bigint is int64: every id fits exactly, and the driver hands it to us as a BigInt. Name
    // and tag are their UTF-8 bytes (bytea), not text: PostgreSQL's text cannot hold U+0000,
    // which the contract allows in a name and SQLite stores, and a store must not refuse on one
    // backend what it takes on the other.
    statements: ['CREATE TABLE plants (id bigint PRIMARY KEY, name bytea NOT NULL, tag bytea NULL)'],
  },
];

/**
 * What a concurrent start looks like from the losing side: two instances creating the same
 * table or inserting the same version race in the catalog (23505 unique violation, 42P07
 * duplicate table, 42710 duplicate object: the table's row type), or are told to retry (40001 serialization, 40P01 deadlock). Rolled back
 * and run again, the loser finds the work done.
 */
const RACE_SQLSTATES = new Set(['23505', '42P07', '42710', '40001', '40P01']);
const MAX_ATTEMPTS = 8;

/** The schema is newer than this plants knows; the caller refuses the database. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly latest: number,
  ) {
    super(`the database has plants schema version ${found}, newer than this plants knows (${latest})`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Brings the schema up to the last step, each step and its record in one transaction, on one
 * connection. Safe when several instances start at once on an empty database: a step another
 * instance is running makes this one fail with a race error, and it rolls back, waits 10–50 ms
 * (random, so that the instances do not collide again) and looks again.
 */
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
