import type { TestProject } from 'vitest/node';
import { postgresTestsEnabled, startPostgresCluster } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared test cluster's `postgres` database URL, or '' when the PostgreSQL tests skip. */
    postgresAdminUrl: string;
  }
}

/**
 * One PostgreSQL cluster for the whole run (starting one takes about a second); each test file
 * makes a database of its own in it (test/helpers/store-backends.ts). Tests that stop and start
 * the server (the fault tests) start a cluster of their own instead.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!postgresTestsEnabled()) {
    project.provide('postgresAdminUrl', '');
    return undefined;
  }
  const cluster = await startPostgresCluster();
  project.provide('postgresAdminUrl', cluster.url('postgres'));
  return () => cluster.close();
}
