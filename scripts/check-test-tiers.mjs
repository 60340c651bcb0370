#!/usr/bin/env node
// Every test file runs in exactly one tier: lists test/**/*.test.ts and the files each tier's vitest
// config picks (vitest's own globbing, through its API), and fails naming a file in neither or both.
// npm test runs it first; the tiers are declared in test/tiers.ts.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVitest } from 'vitest/node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tiers = { fast: 'vitest.config.ts', e2e: 'vitest.e2e.config.ts' };

const files = readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => path.join('test', file))
  .sort();

const picked = new Map(files.map((file) => [file, []]));
for (const [tier, config] of Object.entries(tiers)) {
  const vitest = await createVitest(
    'test',
    { config: path.join(root, config), watch: false },
    {},
    { stdout: process.stderr },
  );
  try {
    for (const specification of await vitest.globTestSpecifications()) {
      const file = path.relative(root, specification.moduleId);
      const tiersOfFile = picked.get(file) ?? [];
      tiersOfFile.push(tier);
      picked.set(file, tiersOfFile);
    }
  } finally {
    await vitest.close();
  }
}

let wrong = 0;
for (const [file, tiersOfFile] of picked) {
  if (tiersOfFile.length === 1) continue;
  wrong += 1;
  console.error(
    tiersOfFile.length === 0 ? `${file}: in no tier` : `${file}: in more than one tier (${tiersOfFile.join(', ')})`,
  );
}
if (wrong > 0) {
  console.error(`check-test-tiers: ${wrong} test file(s) not in exactly one tier (see test/tiers.ts)`);
  process.exit(1);
}
console.log(`check-test-tiers: ${files.length} test files, each in one tier`);
