import { defineConfig } from 'vitest/config';
import { e2e, smoke } from './test/tiers.js';
import { defaultExclude, tierConfig } from './vitest.shared.js';

// The e2e tier (`npm run test:e2e`): the files test/tiers.ts names, less the fast tier's smoke suites.
export default defineConfig(
  tierConfig('.vitest-report-e2e.json', [
    { extends: true, test: { name: 'e2e', include: e2e, exclude: [...defaultExclude, ...smoke] } },
  ]),
);
