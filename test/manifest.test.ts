import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { makeTempDir, projectRoot } from './helpers/cli.js';

const temp = makeTempDir('plants-manifest-');
afterAll(() => temp.remove());

it('the committed oclif.manifest.json is what `oclif manifest` makes of the built commands', () => {
  // Regenerate in a scratch copy so the committed file is compared, never overwritten.
  cpSync(path.join(projectRoot, 'package.json'), path.join(temp.dir, 'package.json'));
  cpSync(path.join(projectRoot, 'dist'), path.join(temp.dir, 'dist'), { recursive: true });
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(temp.dir, 'node_modules'));
  execFileSync(process.execPath, [path.join(projectRoot, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest'], {
    cwd: temp.dir,
    stdio: 'pipe',
  });
  const fresh = JSON.parse(readFileSync(path.join(temp.dir, 'oclif.manifest.json'), 'utf8'));
  const committed = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8'));
  expect(committed, 'oclif.manifest.json is stale: run `npm run build && npm run manifest`').toEqual(fresh);
}, 60_000);
