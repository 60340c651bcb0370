/**
 * The package as users get it (issue 11): `npm pack`, then `npm install -g --prefix` of the
 * tarball into a temporary folder, then the installed `plants` on PATH's Node, and `npx` from
 * the tarball. dist/ is what `npm test` built just before (the build runs before vitest), so the
 * tarball is packed without running `prepare` again.
 *
 * npm fetches the dependencies from the registry into a cache inside the temporary folder
 * (removed afterwards: nothing is cached outside it). The install compiles nothing (better-sqlite3
 * 13 ships its Node-API binaries in its package): npm runs with a PATH that holds only the
 * running Node, PATH's npm and a shell — no compiler, no make, no Python — and no Node headers
 * (npmEnvIn).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { nodeOfLine } from '../helpers/nodes.js';
import { INSTALL_MS, npmEnvIn, type PackedFile, packPackage, run } from '../helpers/npm-package.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';

const version: string = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version;

/** What a user's tarball may hold: what runs, the manifest, and README/LICENSE. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^bin\/run\.js$/,
  /^oclif\.manifest\.json$/,
  /^dist\/.+\.js$/,
  // plants/testing's type declarations (the build's others are left out).
  /^dist\/testing\/[a-z-]+\.d\.ts$/,
  // The entry and the fast route's bundle (a CommonJS file each), and the route table and help
  // pages derived from the commands at build time.
  /^dist\/fast\/(entry|runner)\.cjs$/,
  /^dist\/entry\/routes\.json$/,
  /^dist\/entry\/help\.json$/,
  // The OpenAPI document plants serve serves at /openapi.json.
  /^dist\/server\/openapi\.json$/,
  // plants serve's page (src/server/page/assets), served as it is.
  /^dist\/server\/page\/assets\/(index\.html|page\.js|page\.css|icon\.svg)$/,
];

describe('the package as users install it (npm pack, npm install -g --prefix, npx)', () => {
  const temp = makeTempDir('plants-package-');
  const prefix = path.join(temp.dir, 'prefix');
  const plants = path.join(prefix, 'bin', 'plants');
  const configDir = path.join(temp.dir, 'config');
  let tarball = '';
  let packed: { files: PackedFile[]; size: number; unpackedSize: number; entryCount: number };
  const npmEnv = npmEnvIn(temp.dir);
  /** The installed CLI's environment: a user's, with a config folder of its own. */
  const userEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: `${path.join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: temp.dir,
    LANG: 'C.UTF-8',
    PLANTS_CONFIG_DIR: configDir,
    ...extra,
  });

  beforeAll(async () => {
    ({ tarball, ...packed } = await packPackage(temp.dir));
    const install = await run('npm', ['install', '--global', '--prefix', prefix, tarball], {
      cwd: temp.dir,
      env: npmEnv,
    });
    expect(install.code, `${install.stdout}\n${install.stderr}`).toBe(0);
  }, INSTALL_MS);

  afterAll(() => temp.remove());

  it('holds what runs and its README and LICENSE, nothing else', () => {
    const files = packed.files.map((file) => file.path);
    // The figures issue 11 asks the test to print.
    console.log(
      `npm pack: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked`,
    );
    expect(files.filter((file) => !ALLOWED.some((allowed) => allowed.test(file)))).toEqual([]);
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'bin/run.js', 'oclif.manifest.json']) {
      expect(files).toContain(needed);
    }
    expect(files.some((file) => file.startsWith('dist/commands/'))).toBe(true);
    expect(files.some((file) => file.startsWith('dist/fast/'))).toBe(true);
    for (const asset of ['index.html', 'page.js', 'page.css', 'icon.svg'])
      expect(files).toContain(`dist/server/page/assets/${asset}`);
  });

  it(
    'runs as installed: --version, serve, login --with-token, add, list, get, delete, completion',
    async () => {
      const version_ = await run(plants, ['--version'], { env: userEnv() });
      expect(version_.code, version_.stderr).toBe(0);
      expect(version_.stdout).toContain(`plants/${version} `);
      expect(version_.stdout).toContain(`node-${process.version}`);

      const token = 'installed-package-token-0123456789';
      let server: ServeProcess | undefined;
      try {
        server = await startServeProcess(
          ['--memory', '--port', '0', '--token', token],
          { PLANTS_CONFIG_DIR: configDir, HOME: temp.dir },
          { executable: plants },
        );
        const env = userEnv({ PLANTS_BASE_URL: server.url });
        // serve's page, from the installed files, as this checkout has them.
        for (const [asset, served] of [
          ['index.html', ''],
          ['page.js', 'page.js'],
          ['page.css', 'page.css'],
          ['icon.svg', 'icon.svg'],
        ] as const) {
          const answer = await fetch(`${server.url}/_serve/${served}`);
          expect(answer.status).toBe(200);
          expect(await answer.text()).toBe(
            readFileSync(path.join(projectRoot, 'src', 'server', 'page', 'assets', asset), 'utf8'),
          );
        }
        const login = await run(plants, ['login', '--with-token'], { env, input: `${token}\n` });
        expect(login.code, login.stderr).toBe(0);

        // An id past 2^53: exact through the installed package too.
        const add = await run(
          plants,
          ['add', '--id', '9007199254740993', '--name', 'Fern', '--tag', 'herb', '--json'],
          {
            env,
          },
        );
        expect(add.code, add.stderr).toBe(0);
        expect(add.stdout.trim()).toBe('{"id":9007199254740993,"name":"Fern","tag":"herb"}');

        const list = await run(plants, ['list', '--json'], { env });
        expect(list.code, list.stderr).toBe(0);
        expect(list.stdout).toContain('"id":9007199254740993');

        const get = await run(plants, ['get', '9007199254740993', '--json'], { env });
        expect(get.code, get.stderr).toBe(0);
        expect(get.stdout).toContain('"id":9007199254740993');
        expect(get.stdout).toContain('"name":"Fern"');

        const remove = await run(plants, ['delete', '9007199254740993', '--yes'], { env });
        expect(remove.code, remove.stderr).toBe(0);
        const gone = await run(plants, ['get', '9007199254740993'], { env });
        expect(gone.code).toBe(1);
        expect(gone.stderr).toContain('9007199254740993');
      } finally {
        await server?.stop();
      }

      const completion = await run(plants, ['autocomplete', 'script', 'bash'], { env: userEnv() });
      expect(completion.code, completion.stderr).toBe(0);
      expect(completion.stdout).toContain('complete ');
      expect(completion.stdout).toContain('plants');
    },
    INSTALL_MS,
  );

  it(
    'refuses a Node older than 22.19 in one line, exit 1, before loading anything else',
    async () => {
      const node20 = nodeOfLine('20');
      expect(node20, 'Node 20 from the registry (.ci/node-matrix --install 20)').toBeDefined();
      if (node20 === undefined) return;
      const installed = path.join(prefix, 'lib', 'node_modules', 'plants', 'bin', 'run.js');
      for (const args of [['--version'], ['add', '--id', '1', '--name', 'Fern'], ['serve', '--memory']]) {
        const old = await run(node20.node, [installed, ...args], { env: userEnv() });
        expect(old.code).toBe(1);
        expect(old.stdout).toBe('');
        expect(old.stderr).toBe(
          `plants needs Node.js 22.19 or later (22, 24 or 26); this is Node.js ${node20.version}.\n`,
        );
      }
    },
    INSTALL_MS,
  );

  it(
    'in a clone, hands a run on an older Node to the project Node (package.json: node)',
    async () => {
      const node20 = nodeOfLine('20');
      expect(node20, 'Node 20 from the registry (.ci/node-matrix --install 20)').toBeDefined();
      if (node20 === undefined) return;
      const projectNode: string = JSON.parse(
        readFileSync(path.join(projectRoot, 'node_modules', 'node', 'package.json'), 'utf8'),
      ).version;
      const handed = await run(node20.node, [path.join(projectRoot, 'bin', 'run.js'), '--version'], {
        env: userEnv(),
      });
      expect(handed.code, handed.stderr).toBe(0);
      expect(handed.stdout).toContain(`plants/${version} `);
      expect(handed.stdout).toContain(`node-v${projectNode}`);
      const refused = await run(node20.node, [path.join(projectRoot, 'bin', 'run.js'), 'get'], { env: userEnv() });
      expect(refused.code).toBe(2);
    },
    INSTALL_MS,
  );

  it(
    'runs from the tarball with npx, without installing',
    async () => {
      const npx = await run('npx', ['--yes', '--package', tarball, 'plants', '--version'], {
        cwd: temp.dir,
        env: { ...npmEnv, PLANTS_CONFIG_DIR: configDir },
      });
      expect(npx.code, `${npx.stdout}\n${npx.stderr}`).toBe(0);
      expect(npx.stdout).toContain(`plants/${version} `);
    },
    INSTALL_MS,
  );
});
