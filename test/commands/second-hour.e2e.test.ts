import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath } from '../helpers/cli.js';
import { type ServeProcess, useServeProcesses } from '../helpers/serve-process.js';
import { useTempUser } from '../helpers/user.js';

// A newcomer's second hour (issue 43), as processes: two stores logged in to with the lines their
// banners print, the README's copy line between them, and no silent success on the way.

const user = useTempUser(undefined, { scope: 'test' });
const serves = useServeProcesses();
const fixtures = path.resolve(import.meta.dirname, '../server/fixtures');

/** A store started in the user's folder, its banner's login line (as words) and the token under it. */
async function storeWithBanner(name: string, more: readonly string[] = []) {
  const serve = await serves.start(['--port', '0', '--db', path.join(user.dir, `${name}.db`), ...more], user.env);
  await serve.waitForStderr('Ctrl-C stops the server');
  const lines = serve.stderr.split('\n');
  const at = lines.findIndex((line) => line.includes(' login '));
  const words = (lines[at] ?? '').split('#')[0]?.trim().split(/\s+/) ?? [];
  return { serve, login: words.slice(1), token: `${lines[at + 1]?.trim()}\n` };
}

const ndjson = (from: number, count: number) =>
  Array.from({ length: count }, (_, at) => `{"id":${from + at},"name":"Plant ${from + at}"}\n`).join('');

const posts = (serve: ServeProcess) =>
  serve.stderr.split('\n').filter((line) => line.startsWith('POST /plants')).length;

describe('a second hour with two stores', () => {
  it('logs in to two stores with their banner lines; the default stays the first, and the copy line copies it', async () => {
    const first = await storeWithBanner('first');
    const second = await storeWithBanner('second');
    const one = await user.run(first.login, { input: first.token });
    expect([one.code, one.stderr]).toEqual([0, expect.stringContaining(`Now the default store: ${first.serve.url}`)]);
    const two = await user.run(second.login, { input: second.token });
    expect(two.code).toBe(0);
    expect(two.stderr).toContain(`The default store is still ${first.serve.url}`);
    expect(two.stderr).not.toContain('Now the default');
    writeFileSync(path.join(user.dir, 'plants.ndjson'), ndjson(1, 250));
    expect((await user.run(['add', '--file', path.join(user.dir, 'plants.ndjson')])).code).toBe(0);

    // plants list --all --json | plants add --file - --base-url <second>
    const listed = await user.run(['list', '--all', '--json']);
    expect(listed.stdout.split('\n')).toHaveLength(251);
    const copied = await user.run(['add', '--file', '-', '--base-url', second.serve.url], { input: listed.stdout });
    expect(copied.code, copied.stderr).toBe(0);
    const there = await user.run(['list', '--all', '--json', '--base-url', second.serve.url]);
    expect(there.stdout).toBe(listed.stdout);
  });

  it('an https login to a plain-http store: not exit 0, no ✓, nothing stored, and the default still answers', async () => {
    const store = await storeWithBanner('plain');
    expect((await user.run(store.login, { input: store.token })).code).toBe(0);
    const wrong = await user.run(
      ['login', '--base-url', store.serve.url.replace('http:', 'https:'), '--default', '--with-token'],
      { input: store.token },
    );
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).not.toContain('✓');
    expect(wrong.stderr).toContain('does not speak TLS on this port; the token was not saved');
    const status = await user.run(['status']);
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toContain(store.serve.url);
  });

  it('a TLS store on 0.0.0.0 prints a login line a client can use, with --ca-cert for its own certificate', async () => {
    const tls = ['--host', '0.0.0.0', '--tls-cert', path.join(fixtures, 'test-tls-cert.pem')];
    const store = await storeWithBanner('tls', [...tls, '--tls-key', path.join(fixtures, 'test-tls-key.pem')]);
    const port = new URL(store.serve.url).port;
    expect(store.login).toEqual([
      'login',
      '--base-url',
      `https://127.0.0.1:${port}`,
      '--ca-cert',
      path.join(fixtures, 'test-tls-cert.pem'),
      '--with-token',
    ]);
    const login = await user.run(store.login, { input: store.token });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('Token checked: the store took the token');
  });

  it('refuses prose before sending anything, and says when an input held no records', async () => {
    const store = await storeWithBanner('prose');
    expect((await user.run(store.login, { input: store.token })).code).toBe(0);
    const prose = await user.run(['add', '--file', '-'], { input: 'hello world\nthis is not json\n' });
    expect([prose.code, prose.stdout]).toEqual([2, '']);
    expect(prose.stderr).toBe(
      'plants: stdin is not JSON (line 1 is not a JSON value); nothing was sent: plants reads JSON text: a NewPlant object, a JSON array of them, or NDJSON (one per line)\n',
    );
    const empty = await user.run(['add', '--file', '-'], { input: '' });
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([
      0,
      '',
      '0 records read: the input held no plants, so nothing was sent.\n',
    ]);
    expect(posts(store.serve)).toBe(0);
  });

  it('a bulk add whose stdout is closed (| head -1) leaves its summary on stderr, exit 141', async () => {
    const store = await storeWithBanner('closed');
    expect((await user.run(store.login, { input: store.token })).code).toBe(0);
    // More results than a pipe holds: some are written after head has gone.
    writeFileSync(path.join(user.dir, 'many.ndjson'), ndjson(1, 5000));
    const shell = spawn(
      'bash',
      ['-c', `set -o pipefail; "${process.execPath}" "${binPath}" add --file many.ndjson | head -1`],
      { cwd: user.dir, env: { ...user.env, PATH: process.env.PATH ?? '' } },
    );
    let stdout = '';
    let stderr = '';
    shell.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    shell.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => shell.on('close', resolve));
    expect(code).toBe(141);
    expect(stdout).toBe('{"line":1,"sent":true,"status":200,"plant":{"id":1,"name":"Plant 1"},"outcome":"added"}\n');
    expect(stderr).toMatch(
      /^plants: stopped: stdout was closed after \d+ added; .+\n {2}To carry on, send the same file again: `plants add --file many.ndjson --skip-existing` .+\n$/,
    );
  });

  it('an import run again names --skip-existing', async () => {
    const store = await storeWithBanner('rerun');
    expect((await user.run(store.login, { input: store.token })).code).toBe(0);
    writeFileSync(path.join(user.dir, 'import.ndjson'), ndjson(1, 20));
    expect((await user.run(['add', '--file', 'import.ndjson'], { cwd: user.dir })).code).toBe(0);
    const again = await user.run(['add', '--file', 'import.ndjson'], { cwd: user.dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      '  20 of the 409s are plants stored exactly as sent, as when an import runs again: --skip-existing reports those as already there (exit 0).\n',
    );
  });

  it('a 503 that outlasts --retries says the tries were made, and the store is not "busy"', async () => {
    const store = await storeWithBanner('faulty', ['--fault', '503=1']);
    expect((await user.run(store.login, { input: store.token })).code).toBe(0);
    const add = await user.run(['add', '--id', '1', '--name', 'Fern', '--retries', '2']);
    expect(add.code).toBe(1);
    expect(add.stderr).toMatch(
      /\n {2}The store is unavailable for now \(503\): tried 3 times over \d+\.\d s; --retries N tries more often, or try again later\.\n$/,
    );
    expect(add.stderr).not.toContain('busy');
  });
});
