import type { HelpPages } from './help-pages.js';
import type { RouteTable } from './route-table.js';
import { startPlants } from './start.js';

/**
 * plants' version, the route table and the help pages oclif rendered (dist/entry/*.json), each a
 * JSON text the build writes into the script (scripts/build-binary.mjs, esbuild's `define`).
 */
declare const PLANTS_VERSION: string;
declare const PLANTS_ROUTES: string;
declare const PLANTS_HELP: string;

// The single executable's main script (scripts/build-binary.mjs bundles it as CommonJS, every
// command with it): start.ts's steps, with no oclif. In a single executable, process.argv is
// [executable, executable, ...arguments].
startPlants(process.argv.slice(2), {
  version: PLANTS_VERSION,
  async helpPage(subjects) {
    const { pageFrom } = await import('./help-pages.js');
    return pageFrom(JSON.parse(PLANTS_HELP) as HelpPages, subjects, PLANTS_VERSION, async () => true);
  },
  routes: async () => JSON.parse(PLANTS_ROUTES) as RouteTable,
  async runner() {
    const { runCommandLine } = await import('../cli/runner.js');
    // The command is over and what it wrote is out (stdout and stderr are synchronous on Linux,
    // and an error of theirs is told by then: exitOnStdoutErrors); a connection left open is the
    // exit's to close. Exiting here spares tearing down a heap and an environment that the
    // process is about to lose (docs/binary.md).
    return { runCommandLine, ran: () => setImmediate(() => process.exit()) };
  },
}).catch((error: unknown) => {
  process.stderr.write(`plants: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
