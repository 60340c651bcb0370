import { statSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// A test file's tier is in its name (docs/development.md):
//   *.test.ts            the fast tier, `npm test`: unit and in-process tests, smoke runs of the built CLI
//   *.e2e.test.ts        the e2e tier, `npm run test:e2e`: a process per case, a browser, real shells,
//                        the single executable, the docs' examples, faults; CI runs it on its own Node
//   *.node-e2e.test.ts   e2e tests whose outcome depends on the Node running them; in `npm run test:e2e`,
//                        and CI runs them, with the fast tier, on every Node of its matrix
const e2e = 'test/**/*.e2e.test.ts';
const nodeE2e = 'test/**/*.node-e2e.test.ts';

/**
 * The files in one order across the projects: those that failed last time, then the longest
 * (vitest's cache of the last run), then, for files it has no time of, the largest. vitest's own
 * order runs the projects one after another, so that in a run of fast and node-e2e the entry's
 * minute-long suite started after every fast file, and ran alone at the end.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache } = this.ctx;
    const known = files.map((file) => {
      const last = cache.getTestSpecificationResult(file);
      return {
        file,
        failed: last?.failed === true,
        duration: last?.duration,
        size: statSync(file.moduleId, { throwIfNoEntry: false })?.size ?? 0,
      };
    });
    known.sort(
      (a, b) =>
        Number(b.failed) - Number(a.failed) ||
        (b.duration ?? Number.POSITIVE_INFINITY) - (a.duration ?? Number.POSITIVE_INFINITY) ||
        b.size - a.size,
    );
    return known.map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    // A real PostgreSQL for the tests that run on both stores (skipped, loudly, without one; never in CI).
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    // Tests start real servers and real CLI processes; two cores here, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    // No session bus for in-process runs: a login in a test never reaches the developer's own
    // keyring (test/helpers/secret-service.ts gives the CLI processes that need one a bus of their own).
    env: { DBUS_SESSION_BUS_ADDRESS: '' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run counts for its closing "N passed, N failed" line
    // (`npm run test:e2e` writes .vitest-report-e2e.json instead).
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, e2e, nodeE2e] },
      },
      { extends: true, test: { name: 'e2e', include: [e2e] } },
      { extends: true, test: { name: 'node-e2e', include: [nodeE2e] } },
    ],
  },
});
