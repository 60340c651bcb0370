import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { run } from '../helpers/npm-package.js';

/** Module hooks that write down the URL of every ES module resolved, one a line. */
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}`;

/** A user's test: imports plants/testing by the package's name (the build's), adds a plant, closes. */
const CHILD = `import { createRequire, register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(process.env.HOOKS), { data: { log: process.env.LOG } });
const { startStore } = await import('plants/testing');
const store = await startStore();
const answer = await fetch(store.url + '/plants', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + store.token, 'content-type': 'application/json' },
  body: '{"id":1,"name":"Fern"}',
});
await answer.text();
await store.close();
process.stdout.write(JSON.stringify({ status: answer.status, required: Object.keys(createRequire(import.meta.url).cache) }));
`;

/** What the CLI is made of: none of it may be loaded by plants/testing. */
const CLI_PARTS = [
  /\/node_modules\/@oclif\//,
  /\/node_modules\/conf\//,
  /\/node_modules\/@napi-rs\/keyring/,
  /\/node_modules\/(chalk|ora|env-paths)\//,
  /\/dist\/(cli|commands|config|entry|client|hooks|completion)\//,
];

describe('plants/testing in a process of its own', () => {
  it('loads nothing of the CLI (no oclif, config or keyring), and the process exits by itself', async () => {
    const temp = makeTempDir('plants-testing-modules-');
    try {
      const log = path.join(temp.dir, 'resolved.txt');
      // Killed after a minute: a handle left open by close() would keep the process running.
      const child = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
        cwd: projectRoot,
        env: { ...process.env, HOOKS, LOG: log },
        timeout: 60_000,
      });
      expect(child.code, child.stderr).toBe(0);
      const { status, required } = JSON.parse(child.stdout) as { status: number; required: string[] };
      expect(status).toBe(200);
      const esm = readFileSync(log, 'utf8').trim().split('\n');
      // The hooks saw the package's modules, and require's cache its CommonJS ones.
      expect(esm).toContain(`file://${projectRoot}/dist/testing/index.js`);
      expect(esm).toContain(`file://${projectRoot}/dist/server/start.js`);
      expect(required.some((file) => file.includes('/node_modules/better-sqlite3/'))).toBe(true);
      const cli = [...esm, ...required].filter((loaded) => CLI_PARTS.some((part) => part.test(loaded)));
      expect(cli).toEqual([]);
    } finally {
      temp.remove();
    }
  });
});
