import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpPage } from '../../src/entry/help-pages.js';
import { makeTempDir, projectRoot, runCli } from '../helpers/cli.js';
import { type FixtureServer, reply, startFixtureServer } from '../helpers/fixture-server.js';
import { usageLines } from './usage-lines.js';

// The entry (src/entry/main.ts, what bin/run.js runs) answers --version, help, and every command
// line, read by the one parser (test/entry/parse-argv.test.ts holds it to the declarations, flag
// by flag), without loading oclif; only help the build did not render goes to oclif.
let server: FixtureServer;
const temp = makeTempDir();
let env: Record<string, string>;
beforeAll(async () => {
  // A plant for a GET, the plant sent for a POST.
  server = await startFixtureServer((request, response) =>
    reply(200, request.method === 'GET' ? '{"id":1,"name":"Fern"}' : request.body)(request, response),
  );
  env = { PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'), PLANTS_BASE_URL: server.url, PLANTS_TOKEN: 'fast-token' };
});
afterAll(async () => {
  await server.close();
  temp.remove();
});

describe('every command line, read by the one parser', () => {
  it.each(usageLines.map((line) => [line.argv, line] as const))("%j: the npm package's words", async (_, line) => {
    const result = await runCli(line.argv, { env: { PLANTS_BASE_URL: 'http://127.0.0.1:9' } });
    expect([result.code, result.stderr, result.stdout]).toEqual([line.code, line.stderr, line.stdout]);
  });

  it('opens the same files for five spellings of one get', async () => {
    const probe = path.join(temp.dir, 'files-probe.cjs');
    // What a process loaded: Node's own modules, and every file required (the bundle's packages).
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_REPORT, JSON.stringify([
        ...process.moduleLoadList, ...Object.keys(require.cache)].sort())));\n`,
    );
    const spellings = [
      ['get', '1', '--json'],
      ['get', '--json', '1'],
      ['get', '1', '--json', '--timeout=5'],
      ['get', '--json', '--', '1'],
      ['get', '1', '--json', '--timeout', '5'],
    ];
    // The code cache made, as a second run of any command finds it.
    await runCli(spellings[0] as string[], { env });
    const loaded = [];
    for (const [index, args] of spellings.entries()) {
      const report = path.join(temp.dir, `files-${index}.json`);
      const result = await runCli(args, { env: { ...env, PROBE_REPORT: report }, nodeArgs: ['--require', probe] });
      expect(result.code, result.stderr).toBe(0);
      loaded.push(JSON.parse(readFileSync(report, 'utf8')));
    }
    for (const files of loaded.slice(1)) expect(files).toEqual(loaded[0]);
    expect(loaded[0].some((file: string) => file.includes('@oclif'))).toBe(false);
  });
});

describe('oclif is not loaded', () => {
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
    // What oclif answered before the one parser, at ten times the cost.
    [['get', '--json', '--', '1']],
    [['add', '--nmae', 'Fern']],
    [['list', '--limit', 'abc']],
    [['frobnicate']],
    [['login', '--token']],
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
