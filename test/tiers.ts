/**
 * The two tiers of the suite, as globs over test/ (vitest.config.ts and vitest.e2e.config.ts
 * read them; scripts/check-test-tiers.mjs checks that every test file runs in exactly one).
 *
 * `npm test` runs the fast tier: unit and in-process tests, and a smoke run of the built CLI and
 * of `plants serve` (the few command suites in `smoke`). `npm run test:e2e` runs the rest: what
 * spawns the CLI or the server case by case, needs a browser, a shell, an installed package or
 * the single executable, or runs for long. A new test file is in the fast tier unless it matches
 * `e2e`.
 */
export const e2e = [
  // Packaging, the shell examples of README.md and docs/, and the single executable.
  'test/package/**/*.test.ts',
  'test/docs/examples.test.ts',
  'test/binary/**/*.test.ts',
  // Reliability: faults, fuzzing, soak, kills, PostgreSQL failover and restarts.
  'test/reliability/**/*.test.ts',
  // Real shells and a real browser.
  'test/completion/**/*.test.ts',
  'test/server/page/page-in-browser.test.ts',
  // The command suites that run the built CLI (or `plants serve`) for every case.
  'test/commands/**/*.test.ts',
  'test/commands/outcome-unknown.e2e.test.ts',
  'test/entry/main.test.ts',
  'test/cli/compile-cache.test.ts',
  'test/cli/failure-table.test.ts',
  'test/cli/hardening.test.ts',
  'test/cli/usage-errors.test.ts',
  'test/cli/render/color-env.test.ts',
];

/**
 * The fast tier's smoke run of the built CLI against a real store: add, list, get and delete,
 * piped and on a terminal (test/commands/manage.test.ts). Matched by `e2e` too; the fast tier
 * takes it. Beside it the fast tier runs the CLI for help and usage errors (test/cli/help/,
 * test/cli/hints.test.ts) and `plants serve` as a process (test/server/start.test.ts, cors.test.ts).
 * test/commands/login.test.ts would add about a minute on two cores, so it is in the e2e tier.
 */
export const smoke = ['test/commands/manage.test.ts'];

/** Every test file: the fast tier is this less `e2e`, plus `smoke`. */
export const all = ['test/**/*.test.ts'];
