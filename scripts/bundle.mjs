// `npm run bundle`, after tsc (`npm run build`): the entry's route table and help pages
// (src/entry/build/write-entry-data.ts), then the runner's bundle (dist/fast/runner.cjs: the
// runner, the one parser and the actions the route table names), one CommonJS file that the entry
// compiles with V8's code cache (src/entry/compile-cache.ts), and the entry itself (dist/fast/entry.cjs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { checkLeanUndici, lazyConfImports, lazyHttp2, leanUndici, undiciWithoutMilo } from './esbuild-plugins.mjs';

/**
 * import() in the bundle: the entry runs it as a vm.Script (src/entry/compile-cache.ts), where
 * import() needs an experimental loader that prints Node's ExperimentalWarning. Node's own modules
 * are required instead (`supported` below); ora, the one package imported (an ES module), goes
 * through the importer the entry puts on globalThis before it loads the bundle.
 */
const oraThroughBin = {
  name: 'ora-through-bin',
  setup(build) {
    build.onLoad({ filter: /[\\/]cli[\\/]render[\\/]import-ora\.js$/ }, () => ({
      contents: `export function importOra() { return globalThis[Symbol.for('plants.importModule')]('ora'); }`,
      loader: 'js',
    }));
  },
};

execFileSync(process.execPath, ['dist/entry/build/write-entry-data.js'], { stdio: 'inherit' });

/**
 * The runner finds an action by its name (import() of ./actions/NAME.js), so esbuild takes in
 * every module of dist/cli/actions/. Those no bundled command's action reaches (the actions of
 * src/entry/unbundled-commands.ts, which the entry runs from dist/, and their helpers) stay out:
 * in their place, a module that says so if it is ever called.
 */
const { unbundledCommands } = await import('../dist/entry/unbundled-commands.js');
const routes = JSON.parse(readFileSync('dist/entry/routes.json', 'utf8'));
const bundledActions = Object.values(routes.commands)
  .filter((route) => route.action !== undefined && !unbundledCommands.includes(route.id))
  .map((route) => `dist/cli/actions/${route.action}.js`);
const reached = await esbuild.build({
  entryPoints: [...new Set(bundledActions)],
  bundle: true,
  platform: 'node',
  packages: 'external',
  outdir: 'dist/fast/unused',
  write: false,
  metafile: true,
  logLevel: 'silent',
});
const unbundled = {
  name: 'unbundled-actions',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]cli[\\/]actions[\\/].*\.js$/ }, (args) => {
      const file = path.relative(process.cwd(), args.path);
      if (reached.metafile.inputs[file] !== undefined) return undefined;
      return {
        contents: `throw new Error(${JSON.stringify(`${file} runs from dist/, not from the bundle`)});`,
        loader: 'js',
      };
    });
  },
};

/** The entry bundle's imports left outside it: resolved from dist/fast/ to where tsc wrote them. */
const fromDist = {
  name: 'from-dist',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/(cli\/runner|cli\/secrets|build\/route-table-from-oclif)\.js$/ }, (args) => ({
      path: `./${path.relative('dist/fast', path.join(args.resolveDir, args.path))}`,
      external: true,
    }));
  },
};

/** Both bundles: one CommonJS file each, for every Node plants supports. */
const commonJsForNode = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  minify: true,
  logLevel: 'warning',
  define: undiciWithoutMilo,
};

await checkLeanUndici();
const result = await esbuild.build({
  ...commonJsForNode,
  entryPoints: ['dist/cli/runner.js'],
  outfile: 'dist/fast/runner.cjs',
  // Loaded where needed, from node_modules: a spinner on terminals; jq (and its WebAssembly, which
  // it reads beside itself) for --jq only; the OS keyring's native binding where a token is kept
  // there; oclif and SQLite never.
  external: ['ora', 'jq-wasm', '@oclif/core', 'better-sqlite3', '@napi-rs/keyring'],
  supported: { 'dynamic-import': false },
  plugins: [leanUndici, lazyHttp2, lazyConfImports, oraThroughBin, unbundled],
  write: false,
});
const [bundle] = result.outputFiles;
if (bundle === undefined || /\bimport\(/.test(bundle.text)) {
  throw new Error('dist/fast/runner.cjs would hold an import(): see oraThroughBin in scripts/bundle.mjs');
}
mkdirSync(path.dirname(bundle.path), { recursive: true });
writeFileSync(bundle.path, bundle.contents);

// The entry (src/entry/main.ts, what bin/run.js runs) as one CommonJS file: every module file Node
// resolves and loads at start-up costs every command, and so does every Node module an ES module
// imports (Node builds it an ES module facade of all its exports). What the entry imports only on
// some routes (oclif, the fast route's runner from dist/, the build's route table code) stays
// outside, imported from dist/ as needed.
await esbuild.build({
  ...commonJsForNode,
  entryPoints: ['dist/entry/main.js'],
  outfile: 'dist/fast/entry.cjs',
  external: ['@oclif/core'],
  plugins: [fromDist],
});
