/**
 * plants/testing as a project outside this repository gets it (issue 53): the packed tarball
 * installed into a project of its own, a node:test suite in TypeScript compiled with
 * `module: nodenext` against the installed types, then run by Node, which must exit by itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { INSTALL_MS, npmEnvIn, packPackage, run } from '../helpers/npm-package.js';

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    outDir: 'out',
    // Node's types from this checkout (the project installs nothing but plants).
    typeRoots: [path.join(projectRoot, 'node_modules', '@types')],
    types: ['node'],
  },
  include: ['src'],
};

/** What the issue asks of a user's suite, in node:test. */
const SUITE = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Store, startStore } from 'plants/testing';

const MAX_ID = 9223372036854775807n;

async function post(store: Store, token: string, body: string): Promise<number> {
  const answer = await fetch(\`\${store.url}/plants\`, {
    method: 'POST',
    headers: { authorization: \`Bearer \${token}\`, 'content-type': 'application/json' },
    body,
  });
  await answer.text();
  return answer.status;
}

async function listed(store: Store): Promise<string> {
  const answer = await fetch(\`\${store.url}/plants\`, { headers: { authorization: \`Bearer \${store.token}\` } });
  return answer.text();
}

test('two stores: the right and a wrong token, each its own seed', async () => {
  const seeded = await startStore({ seed: [{ id: MAX_ID, name: 'Max' }] });
  const other = await startStore();
  assert.notEqual(seeded.url, other.url);
  assert.equal(await post(seeded, seeded.token, '{"id":1,"name":"Fern"}'), 200);
  assert.equal(await post(other, other.token, '{"id":2,"name":"Ivy"}'), 200);
  assert.equal(await post(seeded, 'a-wrong-token', '{"id":3,"name":"Oak"}'), 401);
  assert.equal(await post(other, seeded.token, '{"id":3,"name":"Oak"}'), 401);
  assert.equal(await listed(seeded), '[{"id":1,"name":"Fern"},{"id":9223372036854775807,"name":"Max"}]');
  assert.equal(await listed(other), '[{"id":2,"name":"Ivy"}]');
  await seeded.close();
  await other.close();
});

test('closes one through await using', async () => {
  let url = '';
  {
    await using store = await startStore();
    url = store.url;
    assert.equal((await fetch(\`\${url}/livez\`)).status, 200);
  }
  await assert.rejects(fetch(\`\${url}/livez\`));
});

test('starts and closes twenty more', async (t) => {
  const starts: number[] = [];
  for (let i = 0; i < 20; i++) {
    const begun = performance.now();
    const store = await startStore();
    starts.push(performance.now() - begun);
    assert.equal(await post(store, store.token, \`{"id":\${i},"name":"n\${i}"}\`), 200);
    await store.close();
  }
  starts.sort((a, b) => a - b);
  const median = (starts[9]! + starts[10]!) / 2;
  t.diagnostic(\`median start \${median.toFixed(1)} ms\`);
  console.log(\`median start: \${median.toFixed(1)} ms\`);
});
`;

/** An unknown option must not compile: the directive fails the build if it is no error. */
const UNKNOWN_OPTION = `import { startStore } from 'plants/testing';

// @ts-expect-error tokn is no option of startStore
await (await startStore({ tokn: 'x' })).close();
`;

describe('plants/testing, installed from the packed tarball into a project of its own', () => {
  const temp = makeTempDir('plants-testing-export-');
  const project = path.join(temp.dir, 'project');
  const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

  beforeAll(async () => {
    const { tarball } = await packPackage(temp.dir);
    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'uses-plants', private: true, type: 'module' }),
    );
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(path.join(project, 'src', 'stores.test.ts'), SUITE);
    writeFileSync(path.join(project, 'src', 'unknown-option.ts'), UNKNOWN_OPTION);
    const install = await run('npm', ['install', tarball], { cwd: project, env: npmEnvIn(temp.dir) });
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);
  }, INSTALL_MS);

  afterAll(() => temp.remove());

  it('compiles with module nodenext against the installed types; an unknown option is a type error', async () => {
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: project });
    expect(compiled.code, compiled.stdout).toBe(0);
    // Without the directive, the line is the error the directive expects, naming the option.
    mkdirSync(path.join(project, 'bare'));
    writeFileSync(
      path.join(project, 'bare', 'unknown-option.ts'),
      UNKNOWN_OPTION.replace(/^\/\/ @ts-expect-error.*\n/m, ''),
    );
    writeFileSync(
      path.join(project, 'tsconfig.bare.json'),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true }, include: ['bare'] }),
    );
    const bare = await run(process.execPath, [tsc, '-p', 'tsconfig.bare.json', '--pretty', 'false'], { cwd: project });
    expect(bare.code).not.toBe(0);
    expect(bare.stdout).toMatch(
      /unknown-option\.ts\(3,\d+\): error TS(2353|2561): .*'tokn' does not exist in type 'StoreOptions'/,
    );
  }, 120_000);

  it('runs a node:test suite of two stores, await using and twenty more, and exits by itself', async () => {
    // Killed after a minute: a handle left open would keep Node running, and fail the test.
    const suite = await run(process.execPath, [path.join('out', 'stores.test.js')], {
      cwd: project,
      timeout: 60_000,
    });
    expect(suite.code, `${suite.stdout}\n${suite.stderr}`).toBe(0);
    expect(suite.stdout).toMatch(/tests 3\b/);
    expect(suite.stdout).toMatch(/pass 3\b/);
    // The figure the issue asks for (a goal, not asserted here: speed belongs to the bench).
    console.log(suite.stdout.match(/median start: [\d.]+ ms/)?.[0]);
  }, 120_000);
});
