import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';

// The project carries the interface it implements (spec/), so a clone anywhere passes its own
// tests. Where the documents it was created from sit beside the clone (../shared, as for
// .ci/run), the copies must not drift from them; whether they are there is read from the disk,
// never guessed from the environment (GitHub Actions and most CI services set CI=true too).
const shared = path.resolve(projectRoot, '..', 'shared');
const copies = [
  ['plant-store.openapi.yaml', 'plant-store.openapi.yaml'],
  ['plant-store-interface.md', path.join('seed', 'plant-store-interface.md')],
] as const;

describe('spec/ is the interface the project was created from', () => {
  for (const [copy, original] of copies) {
    const originalPath = path.join(shared, original);
    it(`spec/${copy} equals ../shared/${original}`, ({ skip }) => {
      if (!existsSync(originalPath)) skip(`no ${originalPath} beside this clone to compare with`);
      const ours = readFileSync(path.join(projectRoot, 'spec', copy), 'utf8');
      expect(ours).toBe(readFileSync(originalPath, 'utf8'));
    });
  }
});
