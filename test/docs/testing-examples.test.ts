import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';
import { run } from '../helpers/npm-package.js';

// docs/testing.md's plants/testing examples, against the build (dist/, by the package's name):
// the node:test one run as the page says, the vitest one compiled with the project's types.

const page = readFileSync(path.join(projectRoot, 'docs', 'testing.md'), 'utf8');

/** The page's code block in `language` whose first line names `file`. */
function example(language: string, file: string): string {
  const block = [...page.matchAll(/^```(\w+)\n([\s\S]*?)^```/gm)].find(
    (found) => found[1] === language && (found[2] ?? '').startsWith(`// ${file}`),
  );
  if (block?.[2] === undefined) throw new Error(`docs/testing.md has no ${language} example ${file}`);
  return block[2];
}

describe("docs/testing.md's plants/testing examples", () => {
  let dir = '';
  beforeAll(() => {
    // Inside the project (in the git-ignored .vitest-tmp/), so that `plants/testing` resolves to this package.
    mkdirSync(path.join(projectRoot, '.vitest-tmp'), { recursive: true });
    dir = mkdtempSync(path.join(projectRoot, '.vitest-tmp', 'testing-docs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the node:test example with node --test, which passes and exits by itself', async () => {
    writeFileSync(path.join(dir, 'stores.test.mjs'), example('js', 'stores.test.mjs'));
    // Killed after a minute: a store left open would keep Node running, and fail the test.
    const ran = await run(process.execPath, ['--test', 'stores.test.mjs'], { cwd: dir, timeout: 60_000 });
    expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toMatch(/pass 2\b/);
  });

  it('compiles the vitest example with module nodenext against the package types', async () => {
    writeFileSync(path.join(dir, 'stores.test.ts'), example('ts', 'stores.test.ts'));
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(projectRoot, 'node_modules', '@types')],
        },
        files: ['stores.test.ts'],
      }),
    );
    const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir });
    expect(compiled.code, compiled.stdout).toBe(0);
  });
});
