import { configDefaults, type ViteUserConfig } from 'vitest/config';

/** What both tiers share (vitest.config.ts, vitest.e2e.config.ts); each adds its files and its report. */
export function tierConfig(report: string, projects: NonNullable<ViteUserConfig['test']>['projects']): ViteUserConfig {
  return {
    test: {
      // A real PostgreSQL for the tests that run on both stores (skipped, loudly, without one; never in CI).
      globalSetup: ['test/helpers/postgres-global-setup.ts'],
      // Tests start real servers and real CLI processes; two cores here, so keep parallelism modest.
      pool: 'forks',
      maxWorkers: 2,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // The JSON report is what .ci/run reads for its closing "N passed, N failed" line.
      reporters: ['default', ['json', { outputFile: report }]],
      projects,
    },
  };
}

export const defaultExclude = configDefaults.exclude;
