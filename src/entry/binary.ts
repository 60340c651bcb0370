import type { runCommandLine } from '../cli/runner.js';
import { bundleFile, enableCompileCache, loadBundle } from './compile-cache.js';
import type { HelpPages } from './help-pages.js';
import type { RouteTable } from './route-table.js';
import { startPlants } from './start.js';

/** JSON texts the build writes into the script (scripts/build-binary.mjs, esbuild's `define`). */
declare const PLANTS_VERSION: string;
declare const PLANTS_ROUTES: string;
declare const PLANTS_HELP: string;

// The single executable's main script: start.ts's steps without oclif, the runner (every command)
// from the asset runner.cjs. Here process.argv is [executable, executable, ...arguments].
startPlants(process.argv.slice(2), {
  version: PLANTS_VERSION,
  async helpPage(subjects) {
    const { pageFrom } = await import('./help-pages.js');
    return pageFrom(JSON.parse(PLANTS_HELP) as HelpPages, subjects, PLANTS_VERSION, async () => true);
  },
  routes: async () => JSON.parse(PLANTS_ROUTES) as RouteTable,
  async runner() {
    const text = process.getBuiltinModule('node:sea').getAsset('runner.cjs', 'utf8');
    const require = (id: string) => {
      const found = process.getBuiltinModule(id);
      if (found === undefined) throw new Error(`${id} is not in the single executable`);
      return found;
    };
    // Stamped with the executable's size and time: a rebuilt binary never meets the cache of another.
    const source = bundleFile(process.execPath, text, require);
    const argv = process.argv.slice(2);
    const bundle = await loadBundle<{ runCommandLine: typeof runCommandLine }>(
      source,
      await enableCompileCache(),
      argv,
    );
    return {
      runCommandLine: bundle.exports.runCommandLine,
      ran(succeeded) {
        bundle.saveCodeCache(succeeded);
        // What it wrote is out (synchronous on Linux): exiting spares tearing down the heap (docs/binary.md).
        setImmediate(() => process.exit());
      },
    };
  },
}).catch((error: unknown) => {
  process.stderr.write(`plants: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
