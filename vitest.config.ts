import { defineConfig } from 'vitest/config';
import { all, e2e, smoke } from './test/tiers.js';
import { defaultExclude, tierConfig } from './vitest.shared.js';

// The fast tier (`npm test`): every test file but the e2e tier's (test/tiers.ts), and the smoke suites.
export default defineConfig(
  tierConfig('.vitest-report.json', [
    { extends: true, test: { name: 'fast', include: all, exclude: [...defaultExclude, ...e2e] } },
    { extends: true, test: { name: 'smoke', include: smoke } },
  ]),
);
