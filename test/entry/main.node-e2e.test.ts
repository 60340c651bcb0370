import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpPage } from '../../src/entry/help-pages.js';
import { makeTempDir, projectRoot, runCli } from '../helpers/cli.js';
import { type FixtureServer, type RecordedRequest, reply, startFixtureServer } from '../helpers/fixture-server.js';

// The entry (src/entry/main.ts, what bin/run.js runs) answers --version, help, and every command
// line its route table parses, without loading oclif. Whatever it takes, it must answer exactly
// as the oclif command does (test/entry/parse-argv.test.ts holds the two parsers in step, flag by
// flag; this runs the whole route, action and output included); whatever it does not take,
// oclif must get.
let server: FixtureServer;
const temp = makeTempDir();
let env: Record<string, string>;
beforeAll(async () => {
  server = await startFixtureServer((request, response) => {
    if (request.body.includes('"id":409')) return reply(409, '{"error":409,"message":"taken"}')(request, response);
    if (request.body.includes('"id":502'))
      return reply(502, '<html>bad gateway</html>', 'text/html')(request, response);
    return reply(200, request.body)(request, response);
  });
  env = { PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'), PLANTS_BASE_URL: server.url, PLANTS_TOKEN: 'fast-token' };
});
afterAll(async () => {
  await server.close();
  temp.remove();
});

describe('the fast path answers exactly like oclif', () => {
  it.each([
    [['--version']],
    [['--help']],
    [['-h']],
    [['add', '--id', '9223372036854775807', '--name', 'Oak', '--tag', 'tree']],
    [['plant', 'add', '--id', '1', '--name', 'Fern', '--json']],
    [['add', '--id=2', '--name=Ivy', '--timeout', '5', '--retries', '0']],
    [['add', '--id', '409', '--name', 'Taken']],
    [['add', '--id', '409', '--name', 'Taken', '--json']],
    [['add', '--id', '502', '--name', 'Proxy']],
    [['add', '--id', '9223372036854775808', '--name', 'Too big']],
    [['add', '--id', '1', '--name', '']],
    [['add', '--id', '1', '--name', 'x', '--base-url', 'http://plants.example.com']],
    [['add', '--id', '1', '--name', 'x', '--timeout', 'soon']],
    [['add', '--id', '1', '--id', '2', '--name', 'x']],
    [['add', '--id', '1', '--name', 'x', 'stray']],
    [['add', '--name', 'x']],
    [['add', '--id', '1', '--name', 'x', '--ca-cert', '/nonexistent/ca.pem']],
  ])('%j', async (args) => {
    const fast = await runCli(args, { env });
    const oclif = await runCli(args, { env, viaOclif: true });
    expect(fast.code).toBe(oclif.code);
    expect(fast.stdout).toBe(oclif.stdout);
    expect(fast.stderr).toBe(oclif.stderr);
  });

  // Adds from a file or stdin, one record or many (a bulk add's summary gives its time and rate,
  // which are the only words that may differ).
  const lines = (...records: string[]) => `${records.join('\n')}\n`;
  it.each([
    [['add', '--file', '-'], lines('{"id":1,"name":"a"}', '{"id":2,"name":"b","tag":"t"}')],
    [
      ['add', '-f', '-', '--concurrency', '1', '--json'],
      lines('{"id":3,"name":"a"}', '{"id":"x","name":"b"}', '{"id":409,"name":"c"}'),
    ],
    [['plant', 'add', '--file=-', '--name', 'Renamed', '--retries', '0'], '[{"id":4,"name":"a"},{"id":5,"name":"b"}]'],
    [
      ['add', '--file', '-', '--fail-fast', '--concurrency', '1'],
      lines('{"id":502,"name":"a"}', '{"id":6,"name":"b"}', '{"id":7,"name":"c"}'),
    ],
    [['add', '--file', '-', '--skip-existing'], lines('{"id":409,"name":"a"}')],
    [['add', '--file', '-', '--id', '8'], '{"id":1,"name":"one record"}'],
    [['add', '--file', '-'], ''],
    [['add', '--file', '/nonexistent/plants.ndjson'], ''],
    [['add', '--file', '-', '--concurrency', '0'], lines('{"id":9,"name":"a"}')],
    [['add', '--file', '-', '--concurrency', '257'], lines('{"id":9,"name":"a"}')],
    [['add', '--file', '-', '--fail-fast=yes'], lines('{"id":9,"name":"a"}')],
  ])('%j with its input', async (args, input) => {
    const fast = await runCli(args, { env, input });
    const oclif = await runCli(args, { env, input, viaOclif: true });
    const timeless = (text: string) => text.replace(/ in \d+(?:\.\d+)? s \([\d,]+\/s\)/g, ' in T s (R/s)');
    expect(fast.code).toBe(oclif.code);
    expect(fast.stdout).toBe(oclif.stdout);
    expect(timeless(fast.stderr)).toBe(timeless(oclif.stderr));
  });
});

const plant = (id: string, name: string) => `{"id":${id},"name":"${name}","tag":"herb"}`;

/**
 * A store that answers by URL and keeps no state, so that the fast run and the oclif run of
 * the same arguments see the same answers: plant 1 and the largest id exist, 404 is missing,
 * 401 is refused, 502 is a proxy's HTML page; a list of two pages.
 */
function storeAnswers(request: RecordedRequest, response: ServerResponse): void {
  const url = new URL(request.url, 'http://x');
  const id = /^\/plants\/(.+)$/.exec(url.pathname)?.[1];
  const [status, body, contentType = 'application/json'] = ((): [number, string, string?] => {
    if (id === '404') return [404, '{"error":404,"message":"no plant 404"}'];
    if (id === '401') return [401, '{"error":401,"message":"bad token"}'];
    if (id === '502') return [502, '<html>bad gateway</html>', 'text/html'];
    if (request.method === 'DELETE') return [204, ''];
    if (id !== undefined) return [200, plant(id, 'Fern')];
    if (url.searchParams.get('after') === '2') return [200, `[${plant('3', 'Ivy')}]`];
    response.setHeader('link', `</plants?after=2&limit=${url.searchParams.get('limit') ?? 100}>; rel="next"`);
    return [200, `[${plant('1', 'Fern')},${plant('9223372036854775807', 'Oak')}]`];
  })();
  reply(status, body, contentType)(request, response);
}

describe('every fast command answers exactly like its oclif command', () => {
  let store: FixtureServer;
  /** A config folder with a token stored for the store, copied afresh for each run. */
  let seeded: string;
  beforeAll(async () => {
    store = await startFixtureServer(storeAnswers);
    seeded = path.join(temp.dir, 'seeded');
    const login = await runCli(['login', '--token', 'seed-token', '--base-url', store.url], {
      env: { PLANTS_CONFIG_DIR: seeded },
    });
    expect(login.code).toBe(0);
  });
  afterAll(() => store.close());

  let runs = 0;
  /** Runs the arguments both ways, each in its own copy of the seeded config; what each printed and stored. */
  async function bothWays(args: readonly string[], options: { input?: string; token?: boolean } = {}) {
    const results = [];
    for (const viaOclif of [false, true]) {
      const dir = path.join(temp.dir, `config-${runs++}`);
      cpSync(seeded, dir, { recursive: true });
      const env = { PLANTS_CONFIG_DIR: dir, ...(options.token ? { PLANTS_TOKEN: 'env-token' } : {}) };
      const expanded = args.map((arg) => arg.replace('STORE', store.url));
      const result = await runCli(expanded, { env, input: options.input, viaOclif });
      const file = path.join(dir, 'config.json');
      const unfold = (text: string) => text.replaceAll(dir, 'CONFIG');
      results.push({
        code: result.code,
        stdout: unfold(result.stdout),
        stderr: unfold(result.stderr),
        config: existsSync(file) ? readFileSync(file, 'utf8') : undefined,
      });
    }
    return results;
  }

  it.each([
    [['get', '1']],
    [['get', '9223372036854775807', '--json']],
    [['plant', 'get', '1', '--json', '--timeout', '5']],
    [['get', '404']],
    [['get', '401']],
    [['get', '502']],
    [['get', 'abc']],
    [['get', '9223372036854775808']],
    [['get']],
    [['get', '1', '2']],
    [['get', '1', '--timeout', '0']],
    [['get', '--', '1']],
    [['get', '1', '--base-url', 'http://plants.example.com']],
    [['get', '1', '--base-url', 'not a url']],
    [['list']],
    [['list', '--json']],
    [['list', '--all']],
    [['plant', 'list', '--limit', '2', '--all', '--json']],
    [['list', '--after', 'two']],
    [['list', '--limit', '0']],
    [['list', '--limit', '1001']],
    [['list', 'stray']],
    [['delete', '1']],
    [['plant', 'delete', '1', '-y']],
    [['delete', '404']],
    [['delete', 'abc']],
    [['delete', '1', '--json']],
    [['status']],
    [['status', '--json']],
    [['status', '--base-url', 'http://127.0.0.1:1']],
    [['status', 'extra']],
    [['login', '--token', 'new-token']],
    [['login', '--token', 'new-token', '--base-url', 'http://127.0.0.1:2']],
    [['login', '--token', 'has space']],
    [['login', '--token', 'x', '--with-token']],
    [['logout']],
    [['logout', '--base-url', 'STORE']],
    [['logout', '--help']],
    [['reset', '--yes']],
    [['reset']],
    [['reset', '--help']],
    [['serve', '--help']],
    [['serve', '--port', '99999']],
    [['serve', '--memory', '--db', 'x.db']],
    [['help', 'add']],
    [['help', 'environment']],
    [['help', 'nothing']],
    [['plant', '--help']],
    [['add', '--id', '1', '--help']],
    [['nonsense']],
  ])('%j', async (args) => {
    const [fast, oclif] = await bothWays(args);
    expect(fast).toEqual(oclif);
  });

  it('the store of each case is the one seeded (the cases above did reach it)', async () => {
    const [fast] = await bothWays(['get', '1', '--base-url', 'STORE']);
    expect(fast?.code).toBe(0);
    expect(fast?.stdout).toContain('Fern');
  });

  it.each([
    [['login', '--with-token'], 'piped-token\n'],
    [['login', '--with-token', '--base-url', 'http://127.0.0.1:3'], 'piped-token'],
    [['login', '--with-token'], ''],
    [['status'], undefined, true],
    [['status', '--json'], undefined, true],
  ])('%j with stdin %j (PLANTS_TOKEN: %s)', async (args, input, token = false) => {
    const [fast, oclif] = await bothWays(args, { input, token });
    expect(fast).toEqual(oclif);
  });
});

describe('the fast route is the one taken', () => {
  // oclif is CommonJS: whatever imports it leaves it in require.cache, which a preloaded probe
  // reads as the process exits, with Node's own modules loaded (node:tty, which a colour library
  // imports, is not needed when nothing is a terminal and costs every start-up).
  it.each([
    [['--version']],
    [['--help']],
    [['-h']],
    [['add', '--id', '1', '--name', 'x']],
    [['get', '1']],
    [['list', '--json']],
    [['status']],
    [['login', '--token', 'probe-token']],
    [['logout']],
    [['reset', '--yes']],
    [['add', '--help']],
    [['serve', '--help']],
    [['help', 'list']],
  ])(
    '%j loads neither oclif nor node:tty, nor node:http2 (undici loads its HTTP/2 client on first use)',
    async (args) => {
      const probe = path.join(temp.dir, 'probe.cjs');
      const report = path.join(temp.dir, `probe-${args.join('-')}.txt`);
      writeFileSync(
        probe,
        `process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_REPORT, JSON.stringify({
        oclif: Object.keys(require.cache).some((file) => file.includes('@oclif')),
        tty: process.moduleLoadList.includes('NativeModule tty'),
        http2: process.moduleLoadList.includes('NativeModule http2'),
      })));\n`,
      );
      const probed = { ...env, PLANTS_CONFIG_DIR: path.join(temp.dir, 'probe-config'), PROBE_REPORT: report };
      await runCli(args, { env: probed, nodeArgs: ['--require', probe] });
      expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual({ oclif: false, tty: false, http2: false });
    },
  );

  it('and oclif is loaded for what the fast route does not take (the probe sees it)', async () => {
    const probe = path.join(temp.dir, 'probe.cjs');
    const report = path.join(temp.dir, 'probe-help.txt');
    await runCli(['list', '--limit', 'x'], { env: { ...env, PROBE_REPORT: report }, nodeArgs: ['--require', probe] });
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ oclif: true });
  });
});

describe('help from the pages oclif rendered at build time', () => {
  // The snapshot is oclif's text for 80 columns; whatever else would change oclif's text sends
  // --help to oclif (the probe of the describe above sees it), and the answer stays oclif's.
  const themed = path.join(temp.dir, 'themed-config');
  it.each([
    ['OCLIF_COLUMNS=60', { OCLIF_COLUMNS: '60' }],
    ['a theme.json in the config folder', { PLANTS_CONFIG_DIR: themed }],
  ])('with %s, oclif renders it', async (_, extra: Record<string, string>) => {
    mkdirSync(themed, { recursive: true });
    writeFileSync(path.join(themed, 'theme.json'), JSON.stringify({ sectionHeader: 'red' }));
    const fast = await runCli(['--help'], { env: { ...env, ...extra } });
    const oclif = await runCli(['--help'], { env: { ...env, ...extra }, viaOclif: true });
    expect([fast.code, fast.stdout, fast.stderr]).toEqual([oclif.code, oclif.stdout, oclif.stderr]);
    const probe = path.join(temp.dir, 'probe.cjs');
    const report = path.join(temp.dir, `probe-help-${Object.keys(extra).join()}.txt`);
    await runCli(['--help'], { env: { ...env, ...extra, PROBE_REPORT: report }, nodeArgs: ['--require', probe] });
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ oclif: true });
  });

  it('are not used once the manifest differs from the one they were rendered from', async () => {
    const root = path.join(temp.dir, 'package-root');
    mkdirSync(path.join(root, 'dist', 'entry'), { recursive: true });
    for (const file of ['package.json', 'oclif.manifest.json', 'dist/entry/help.json']) {
      cpSync(path.join(projectRoot, file), path.join(root, file));
    }
    const rootUrl = pathToFileURL(`${root}/`);
    const pages = new URL('dist/entry/help.json', rootUrl);
    const text = await helpPage(pages, rootUrl, [''], '0.1.0', {});
    expect(text).toContain(`plants/0.1.0 ${process.platform}-`);
    expect(text).toContain('COMMANDS');
    expect(await helpPage(pages, rootUrl, ['delete'], '0.1.0', {})).toContain('Delete one plant.');
    const manifest = path.join(root, 'oclif.manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('Delete one plant.', 'Delete a plant.'));
    expect(await helpPage(pages, rootUrl, [''], '0.1.0', {})).toBeUndefined();
    expect(await helpPage(pages, rootUrl, ['delete'], '0.1.0', {})).toBeUndefined();
  });
});

describe('every command of the manifest', () => {
  const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, { hidden?: boolean; aliases: string[] }>;
  };
  const ids = Object.entries(manifest.commands)
    .filter(([, command]) => !command.hidden)
    .flatMap(([id, command]) => [id, ...command.aliases]);
  it.each(ids)('%s --help is what oclif prints', async (id) => {
    const args = [...id.split(':'), '--help'];
    const fast = await runCli(args, { env });
    const oclif = await runCli(args, { env, viaOclif: true });
    expect([fast.code, fast.stdout, fast.stderr]).toEqual([oclif.code, oclif.stdout, oclif.stderr]);
    expect(fast.stdout).toContain('USAGE');
  });
});
