import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A real PostgreSQL for the tests that run on both stores (skipped, loudly, without one; never in CI).
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    // Tests start real servers and real CLI processes; two cores here, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run reads for its closing "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.vitest-report.json' }]],
  },
});
