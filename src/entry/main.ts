import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { runCommandLine } from '../cli/runner.js';
import { bundleFile, enableCompileCache, loadBundle } from './compile-cache.js';
import type { RouteTable } from './route-table.js';
import { type Distribution, startPlants } from './start.js';
import { unbundledCommands } from './unbundled-commands.js';

export interface EntryOptions {
  /** import.meta.url of the bin script. */
  bin: string;
  /** bin/dev.js: the sources through tsx, with oclif's development mode, no build. */
  development?: boolean;
}

/** `plants ARGV` from the npm package: start.ts's steps over dist/entry/, the bundled runner, and oclif. */
export async function main(argv: readonly string[], options: EntryOptions): Promise<void> {
  const packageRoot = new URL('..', new URL('.', options.bin));
  const version = (JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8')) as { version: string })
    .version;
  const development = options.development === true;
  const distribution: Distribution = {
    version,
    script: new URL(options.bin),
    async helpPage(subjects) {
      if (development) return undefined;
      const { helpPage } = await import('./help-pages.js');
      return helpPage(new URL('dist/entry/help.json', packageRoot), packageRoot, subjects, version, process.env);
    },
    async routes() {
      if (!development) {
        return JSON.parse(readFileSync(new URL('dist/entry/routes.json', packageRoot), 'utf8')) as RouteTable;
      }
      const [{ Config }, { routeTableFrom }] = await Promise.all([
        import('@oclif/core'),
        import('./build/route-table-from-oclif.js'),
      ]);
      // As oclif's execute({ development: true }) sets it: the commands are loaded from src/.
      process.env.NODE_ENV = 'development';
      return routeTableFrom(await Config.load({ root: fileURLToPath(packageRoot) }));
    },
    async runner(route) {
      type Runner = { runCommandLine: typeof runCommandLine };
      if (development || unbundledCommands.includes(route.id)) {
        const runner: Runner = await import('../cli/runner.js');
        return { runCommandLine: runner.runCommandLine, ran() {} };
      }
      // Not before the quick answers: they compile too little to pay for finding the folder.
      const cacheFolder = await enableCompileCache();
      // The bundle's one import() of a package (ora, for a spinner: scripts/bundle.mjs), done here.
      (globalThis as Record<symbol, unknown>)[Symbol.for('plants.importModule')] = (specifier: string) =>
        import(specifier);
      const file = fileURLToPath(new URL('dist/fast/runner.cjs', packageRoot));
      const bundle = await loadBundle<Runner>(bundleFile(file), cacheFolder, argv);
      return { runCommandLine: bundle.exports.runCommandLine, ran: bundle.saveCodeCache };
    },
    async oclif(words) {
      const { maskSecretsInDebugOutput } = await import('../cli/secrets.js');
      await maskSecretsInDebugOutput(words, () => distribution.routes(), process.stderr);
      const { execute } = await import('@oclif/core');
      await execute({ args: [...words], dir: options.bin, development });
    },
  };
  await startPlants(argv, distribution);
}
