import type { TestProject } from 'vitest/node';
import { type PostgresCluster, postgresTestsEnabled, startPostgresCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared test cluster's `postgres` database URL, or '' when the PostgreSQL tests skip. */
    postgresAdminUrl: string;
  }
}

/** The run's cluster and how many projects hold it: vitest runs this setup once for each project. */
const shared = Symbol.for('plants.test.postgres-cluster');
type Held = { cluster: Promise<PostgresCluster>; holders: number };
const run = globalThis as typeof globalThis & { [shared]?: Held };

/**
 * One PostgreSQL cluster for the whole run (starting one takes about a second), whichever of the
 * projects (vitest.config.ts: fast, e2e, node-e2e) run; each test file makes a database of its
 * own in it (test/helpers/store-backends.ts). Tests that stop and start the server (the fault
 * tests) start a cluster of their own instead.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!postgresTestsEnabled()) {
    project.provide('postgresAdminUrl', '');
    return undefined;
  }
  run[shared] ??= { cluster: startPostgresCluster(), holders: 0 };
  const held = run[shared];
  held.holders += 1;
  project.provide('postgresAdminUrl', (await held.cluster).url('postgres'));
  return async () => {
    held.holders -= 1;
    if (held.holders > 0) return;
    run[shared] = undefined;
    await (await held.cluster).close();
  };
}
