import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';

// The project carries the interface it implements (spec/), so a clone anywhere passes its own
// tests. Where the documents it was created from sit beside the clone (../shared, as in CI), the
// copies must not drift from them.
const shared = path.resolve(projectRoot, '..', 'shared');
const copies = [
  ['plant-store.openapi.yaml', 'plant-store.openapi.yaml'],
  ['plant-store-interface.md', path.join('seed', 'plant-store-interface.md')],
] as const;

describe('spec/ is the interface the project was created from', () => {
  for (const [copy, original] of copies) {
    const originalPath = path.join(shared, original);
    // In CI ../shared is always beside the clone: there the comparison never skips.
    const present = existsSync(originalPath) || process.env.CI === 'true';
    it.runIf(present)(`spec/${copy} equals ../shared/${original}`, () => {
      const ours = readFileSync(path.join(projectRoot, 'spec', copy), 'utf8');
      expect(ours).toBe(readFileSync(originalPath, 'utf8'));
    });
  }
});
