import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';

// docs/commands.md is generated from the commands' own declarations (npm run docs:commands runs
// oclif readme); a change to a command's flags, args, description or examples must regenerate it.
it('docs/commands.md is what oclif readme makes of the commands today', async () => {
  const file = path.join(projectRoot, 'docs', 'commands.md');
  const { stdout } = await promisify(execFile)(
    path.join(projectRoot, 'node_modules', '.bin', 'oclif'),
    ['readme', '--readme-path', file, '--no-source-links', '--dry-run'],
    {
      cwd: projectRoot,
      // As users run it (production): under vitest (NODE_ENV=test) oclif would load the commands' TypeScript sources.
      env: { ...process.env, NODE_ENV: 'production', OCLIF_SKIP_NEW_VERSION_CHECK: 'true', OCLIF_COLUMNS: '100' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  // The dry run prints a line of its own ("replacing <!-- commands --> in …"), then the file.
  const generated = stdout.slice(stdout.indexOf('\n') + 1);
  const committed = readFileSync(file, 'utf8');
  expect(committed.trimEnd(), 'docs/commands.md is stale: run npm run docs:commands').toBe(generated.trimEnd());
  expect(committed).toContain('## `plants add`');
}, 60_000);
