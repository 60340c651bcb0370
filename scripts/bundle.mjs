// `npm run bundle`: the fast path's bundle (dist/fast/fast-path.cjs), one CommonJS file that
// bin/run.js compiles with V8's code cache (see loadFastPath there), then the root help text
// (src/cli/help/write-root-help.ts). Run after tsc (`npm run build`).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

/**
 * undici's Client requires its HTTP/2 half (client-h2.js) as it loads, and with it node:http2
 * and undici's fetch body and WebIDL modules: 17 million instructions of every command, for a
 * protocol plants never asks for (undici speaks HTTP/2 only with allowH2). Here client-h2.js is
 * loaded on its first call instead, unchanged.
 */
const lazyHttp2 = {
  name: 'lazy-undici-client-h2',
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.endsWith(path.join('undici', 'lib', 'dispatcher', 'client.js'))
        ? { path: path.join(args.resolveDir, 'client-h2.js'), namespace: 'lazy-client-h2' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-client-h2' }, (args) => ({
      contents: `let connectH2;
module.exports = function lazyConnectH2(...args) {
  connectH2 ??= require(${JSON.stringify(args.path)});
  return connectH2(...args);
};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * import() in the bundle: Node 20 runs it as a vm.Script (bin/run.js), where import() needs an
 * experimental loader that prints Node's ExperimentalWarning. Node's own modules are required
 * instead (`supported` below); ora, the one package imported (an ES module), goes through the
 * importer bin/run.js puts on globalThis before it loads the bundle.
 */
const oraThroughBin = {
  name: 'ora-through-bin',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]render[\\/]import-ora\.ts$/ }, () => ({
      contents: `export function importOra() { return globalThis[Symbol.for('plants.importModule')]('ora'); }`,
      loader: 'js',
    }));
  },
};

const result = await esbuild.build({
  entryPoints: ['src/cli/fast-path.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: true,
  logLevel: 'warning',
  outfile: 'dist/fast/fast-path.cjs',
  // Loaded by import() where needed, from node_modules: a spinner on terminals; oclif and SQLite never.
  external: ['ora', '@oclif/core', 'better-sqlite3'],
  supported: { 'dynamic-import': false },
  plugins: [lazyHttp2, oraThroughBin],
  write: false,
});
const [bundle] = result.outputFiles;
if (bundle === undefined || /\bimport\(/.test(bundle.text)) {
  throw new Error('dist/fast/fast-path.cjs would hold an import(): see oraThroughBin in scripts/bundle.mjs');
}
mkdirSync(path.dirname(bundle.path), { recursive: true });
writeFileSync(bundle.path, bundle.contents);
execFileSync(process.execPath, ['dist/cli/help/write-root-help.js'], { stdio: 'inherit' });
