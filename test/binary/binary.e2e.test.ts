import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageLines } from '../entry/usage-lines.js';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { readStoredPlants } from '../helpers/store-server.js';
import { runInTty } from '../helpers/tty.js';

// The single executable (npm run build:binary), alone on PATH: no node, npm or node_modules
// reachable. It runs wherever binary/plants-linux-x64 was built; .ci/run builds it first, and
// with CI=true a missing binary is a failure, never a skip.
const BINARY = path.join(projectRoot, 'binary', 'plants-linux-x64');
const built = existsSync(BINARY);
if (!built && process.env.CI === 'true') {
  throw new Error(`${BINARY} not found, and CI=true: .ci/run builds it (npm run build:binary) before the tests`);
}
if (!built) console.warn(`!!! single executable tests SKIPPED: no ${BINARY} (npm run build:binary) !!!`);

const fixtures = path.join(projectRoot, 'test', 'server', 'fixtures');
const TOKEN = 'binary-smoke-token-0123456789';
const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';

describe.runIf(built)('plants-linux-x64, alone on PATH', () => {
  const temp = makeTempDir('plants-binary-');
  /** PATH holds one folder, with `plants` in it and nothing else. */
  const pathDir = path.join(temp.dir, 'bin');
  const plants = path.join(pathDir, 'plants');
  const env = () => ({
    PATH: pathDir,
    HOME: temp.dir,
    LANG: 'C.UTF-8',
    PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'),
    PLANTS_DATA_DIR: path.join(temp.dir, 'data'),
  });

  function run(args: readonly string[], input = '', extraEnv: Record<string, string> = {}) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(plants, args, { env: { ...env(), ...extraEnv }, cwd: temp.dir });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    });
  }
  const serve = (args: readonly string[]) =>
    startServeProcess(args, { ...env(), PATH: pathDir }, { executable: plants });

  let store: ServeProcess;
  const db = path.join(temp.dir, 'store.db');
  beforeAll(async () => {
    mkdirSync(pathDir);
    symlinkSync(BINARY, plants);
    store = await serve(['--port', '0', '--db', db, '--token', TOKEN]);
  });
  afterAll(async () => {
    await store?.stop('SIGKILL');
    temp.remove();
  });

  it('has its SHA-256 beside it, as sha256sum -c reads it', () => {
    const digest = createHash('sha256').update(readFileSync(BINARY)).digest('hex');
    expect(readFileSync(`${BINARY}.sha256`, 'utf8')).toBe(`${digest}  plants-linux-x64\n`);
  });

  it('finds no node on its PATH, and says its version without one', async () => {
    const shell = await new Promise<number | null>((resolve) =>
      spawn('/bin/sh', ['-c', 'command -v node || command -v npm'], { env: env() }).on('close', resolve),
    );
    expect(shell).not.toBe(0);
    const version = await run(['--version']);
    expect(version).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^plants\/0\.1\.0 linux-x64 node-v2\d\.\d+\.\d+\n$/),
      stderr: '',
    });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('USAGE\n  $ plants [COMMAND]');
    expect((await run(['add', '--help'])).stdout).toContain('--id=');
  });

  it('logs in with a token from stdin, adds both int64 extremes exactly, lists, gets and deletes', async () => {
    const login = await run(['login', '--with-token', '--base-url', store.url], `${TOKEN}\n`);
    expect(login.code, login.stderr).toBe(0);
    // No native addon in it: the keyring's binding neither, so the token goes to the 0600 file, said.
    expect(login.stderr).toContain('(mode 0600): the single executable keeps tokens in the file\n');
    expect(JSON.parse(readFileSync(path.join(env().PLANTS_CONFIG_DIR, 'config.json'), 'utf8'))).toEqual({
      defaultBaseUrl: store.url,
      tokens: { [store.url]: TOKEN },
    });
    expect(await run(['add', '--id', MAX, '--name', 'Oak', '--tag', 'tree', '--json'])).toEqual({
      code: 0,
      stdout: `{"id":${MAX},"name":"Oak","tag":"tree"}\n`,
      stderr: '',
    });
    expect((await run(['add', '--id', MIN, '--name', 'Moss'])).code).toBe(0);
    expect((await run(['list', '--json'])).stdout).toBe(
      `{"id":${MIN},"name":"Moss"}\n{"id":${MAX},"name":"Oak","tag":"tree"}\n`,
    );
    expect((await run(['get', MAX, '--json'])).stdout).toBe(`{"id":${MAX},"name":"Oak","tag":"tree"}\n`);
    expect((await run(['get', MIN])).stdout).toContain(`id    ${MIN}`);
    const removed = await run(['delete', MIN, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await run(['get', MIN])).code).toBe(1);
  });

  it('runs --jq (jq inside it, no file beside it) and add --dry-run', async () => {
    expect(await run(['get', MAX, '--jq', '.id'])).toEqual({ code: 0, stdout: `${MAX}\n`, stderr: '' });
    expect(await run(['list', '--all', '--jq', 'select(.tag == "tree") | .name'])).toEqual({
      code: 0,
      stdout: 'Oak\n',
      stderr: '',
    });
    const bad = await run(['get', MAX, '--jq', '.[']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^plants: --jq: jq: error: syntax error/);
    expect(
      await run(['add', '--file', '-', '--dry-run', '--jq', '.outcome'], '{"id":1,"name":"a"}\n{"id":2}\n'),
    ).toEqual({
      code: 2,
      stdout: 'valid\ninvalid\n',
      stderr: '2 records: 1 valid, 1 invalid (line 2)\n',
    });
  });

  it('adds NDJSON from stdin, one result per record', async () => {
    const bulk = await run(
      ['add', '--file', '-'],
      '{"id":1,"name":"a"}\n{"id":2,"name":"b","tag":""}\n{"id":1,"name":"a again"}\n',
    );
    expect(bulk.code).toBe(1);
    expect(
      bulk.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).outcome),
    ).toEqual(['added', 'added', 'rejected']);
  });

  it('exits 2, 3 and 4 on bad input, an unreachable store and a refused token, with one line each', async () => {
    const bad = await run(['add', '--id', '9223372036854775808', '--name', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^plants: /);
    expect((await run(['add', '--id', '1'])).code).toBe(2);
    expect((await run(['add', '--id', '1', '--name', 'x', '--no-such-flag'])).code).toBe(2);
    expect((await run(['lst'])).code).toBe(127);
    const unreachable = await run(['get', '1', '--base-url', 'http://127.0.0.1:1']);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/^plants: cannot reach http:\/\/127\.0\.0\.1:1/);
    const refused = await run(['get', '1'], '', { PLANTS_TOKEN: 'not-the-token-0123456789' });
    expect(refused.code).toBe(4);
    for (const result of [bad, unreachable, refused]) expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(usageLines.map((line) => [line.argv, line] as const))(
    '%j: the same words and exit code as the npm package',
    async (_, line) => {
      const result = await run(line.argv, '', { PLANTS_BASE_URL: 'http://127.0.0.1:9' });
      expect([result.code, result.stderr, result.stdout]).toEqual([line.code, line.stderr, line.stdout]);
    },
  );

  it('exits 74 with one line when its output cannot be written (stdout on a full disk)', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = spawnSync(plants, ['add', '--id', '74', '--name', 'Full', '--json', '--base-url', store.url], {
        env: { ...env(), PLANTS_TOKEN: TOKEN },
        cwd: temp.dir,
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status, result.stderr).toBe(74);
      expect(result.stderr).toBe('plants: cannot write to stdout: no space left on device\n');
    } finally {
      closeSync(full);
    }
  });

  // What add's own bundle leaves out (scripts/build-binary.mjs: undici's agents, ora) is compiled
  // on first need: these are the runs that need it.
  it('adds through a proxy (HTTP_PROXY): undici does it, and says so when the proxy is not there', async () => {
    const viaProxy = await run(
      ['add', '--insecure', '--id', '5', '--name', 'x', '--base-url', 'http://plants.example:4010'],
      '',
      { HTTP_PROXY: 'http://127.0.0.1:1', PLANTS_TOKEN: TOKEN },
    );
    expect(viaProxy).toMatchObject({ code: 3, stdout: '' });
    expect(viaProxy.stderr).toBe('plants: cannot reach http://plants.example:4010: connection refused\n');
  });

  it('on a terminal, shows a spinner while an add is slow (ora), and colour', async () => {
    const slow = await serve(['--memory', '--port', '0', '--token', TOKEN, '--delay', '1500']);
    try {
      // script(1) and its shell need /usr/bin and /bin; the binary needs nothing from them.
      const session = runInTty([plants, 'add', '--id', '5', '--name', 'Fern', '--base-url', slow.url], {
        ...env(),
        PATH: `${pathDir}:/usr/bin:/bin`,
        PLANTS_TOKEN: TOKEN,
      });
      expect(await session.exited).toBe(0);
      expect(session.screen).toContain('Adding plant 5');
      expect(session.screen).toContain('\u001b[32m✓\u001b[39m Added plant 5');
    } finally {
      await slow.stop('SIGKILL');
    }
  });

  it('serve on a file: a kill -9 loses nothing acknowledged, and the restart serves it all', async () => {
    const ids = Array.from({ length: 40 }, (_, index) => 1000 + index);
    const input = ids.map((id) => JSON.stringify({ id, name: `p${id}` })).join('\n');
    const bulk = await run(['add', '--file', '-', '--concurrency', '8'], `${input}\n`);
    expect(bulk.code, bulk.stderr).toBe(0);
    await store.stop('SIGKILL');
    store = await serve(['--port', '0', '--db', db, '--token', TOKEN]);
    const listed = await run(['list', '--json', '--all', '--base-url', store.url], '', { PLANTS_TOKEN: TOKEN });
    const stored = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id as number);
    for (const id of [...ids, 1, 2]) expect(stored).toContain(id);
  });

  it('serve --memory keeps plants while it runs', async () => {
    const memory = await serve(['--port', '0', '--memory', '--token', TOKEN]);
    try {
      const withToken = { PLANTS_TOKEN: TOKEN };
      expect((await run(['add', '--id', '5', '--name', 'Fern', '--base-url', memory.url], '', withToken)).code).toBe(0);
      expect((await run(['list', '--json', '--base-url', memory.url], '', withToken)).stdout).toBe(
        '{"id":5,"name":"Fern"}\n',
      );
    } finally {
      await memory.stop();
    }
  });

  it('serve --detach starts itself again in the background, and the pid file stops it', async () => {
    const pidFile = path.join(temp.dir, 'detached.pid');
    const started = await run([
      'serve',
      '--memory',
      '--port',
      '0',
      '--token',
      TOKEN,
      '--detach',
      '--pid-file',
      pidFile,
    ]);
    expect(started.code, started.stderr).toBe(0);
    const url = started.stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      expect(
        (await run(['add', '--id', '3', '--name', 'Rue', '--base-url', url], '', { PLANTS_TOKEN: TOKEN })).code,
      ).toBe(0);
    } finally {
      process.kill(pid, 'SIGTERM');
    }
  });

  it('speaks TLS to a self-signed store with --ca-cert, and refuses it without (exit 3)', async () => {
    const cert = path.join(fixtures, 'test-tls-cert.pem');
    const tls = await serve([
      '--port',
      '0',
      '--memory',
      '--token',
      TOKEN,
      '--tls-cert',
      cert,
      '--tls-key',
      path.join(fixtures, 'test-tls-key.pem'),
    ]);
    try {
      expect(tls.url).toMatch(/^https:/);
      const withToken = { PLANTS_TOKEN: TOKEN };
      expect((await run(['get', '1', '--base-url', tls.url], '', withToken)).code).toBe(3);
      const trust = ['--base-url', tls.url, '--ca-cert', cert];
      expect((await run(['add', '--id', '7', '--name', 'Ivy', ...trust], '', withToken)).code).toBe(0);
      expect((await run(['get', '7', '--json', ...trust], '', withToken)).stdout).toBe('{"id":7,"name":"Ivy"}\n');
    } finally {
      await tls.stop();
    }
  });

  it('opens a store file the npm package wrote, and the npm package opens what it wrote back', async () => {
    const shared = path.join(temp.dir, 'shared.db');
    const npm = await startServeProcess(['--port', '0', '--db', shared, '--token', TOKEN], {
      PLANTS_CONFIG_DIR: path.join(temp.dir, 'npm-config'),
    });
    const withToken = { PLANTS_TOKEN: TOKEN };
    expect((await run(['add', '--id', MAX, '--name', 'from npm', '--base-url', npm.url], '', withToken)).code).toBe(0);
    await npm.stop();
    const binary = await serve(['--port', '0', '--db', shared, '--token', TOKEN]);
    expect((await run(['get', MAX, '--json', '--base-url', binary.url], '', withToken)).stdout).toBe(
      `{"id":${MAX},"name":"from npm"}\n`,
    );
    expect(
      (await run(['add', '--id', MIN, '--name', 'from the binary', '--base-url', binary.url], '', withToken)).code,
    ).toBe(0);
    await binary.stop();
    expect(readStoredPlants(shared)).toEqual([
      { id: BigInt(MIN), name: 'from the binary', tag: null },
      { id: BigInt(MAX), name: 'from npm', tag: null },
    ]);
  });
});
