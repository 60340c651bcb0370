import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { runNamedAction } from '../cli/runner.js';
import { sizeHeapForBulkAdd } from './bulk-heap.js';
import { enableCompileCache, loadBundle } from './compile-cache.js';
import { helpSubjects } from './help-subjects.js';
import { findRoute, type ParsedCommand, parseArgv } from './parse-argv.js';
import type { RouteTable } from './route-table.js';
import { exitOnStdoutErrors } from './stdout-errors.js';
import { unbundledCommands } from './unbundled-commands.js';

export interface EntryOptions {
  /** import.meta.url of the bin script: the package root is its folder's parent. */
  bin: string;
  /** bin/dev.js: the sources through tsx, with oclif's development mode, no build. */
  development?: boolean;
}

/**
 * `plants ARGV`: the route every run takes, bin/run.js's and bin/dev.js's. `--version`, and help
 * oclif rendered at build time, are answered first; a command line the route table parses
 * exactly as oclif would runs its action through the runner without loading oclif (the fast
 * route); anything else (a usage error, a typo, help at another width, autocomplete) goes to
 * oclif, whose PlantsCommand runs the same action through the same runner.
 */
export async function main(argv: readonly string[], options: EntryOptions): Promise<void> {
  await sizeHeapForBulkAdd(argv, new URL(options.bin));
  exitOnStdoutErrors();
  const packageRoot = new URL('..', new URL('.', options.bin));
  const version = (JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8')) as { version: string })
    .version;
  if (argv[0] === '--version') {
    const { oclifUserAgent } = await import('../cli/help/oclif-user-agent.js');
    const userAgent = oclifUserAgent(version);
    if (userAgent !== undefined) {
      process.stdout.write(`${userAgent}\n`);
      return;
    }
  }
  const subjects = helpSubjects(argv);
  if (subjects !== undefined && !options.development) {
    const { helpPage } = await import('./help-pages.js');
    const page = await helpPage(
      new URL('dist/entry/help.json', packageRoot),
      packageRoot,
      subjects,
      version,
      process.env,
    );
    if (page !== undefined) {
      process.stdout.write(page);
      return;
    }
  }
  // After the quick answers above, which compile too little to pay for finding the cache folder.
  const cacheFolder = await enableCompileCache();
  const parsed = subjects === undefined ? await parseCommandLine(argv, packageRoot, options) : undefined;
  if (parsed !== undefined) {
    await fastRoute(parsed, version, packageRoot, cacheFolder, argv, options);
    return;
  }
  await oclifRoute(argv, packageRoot, options);
}

/** The command line as the route table parses it, or undefined for oclif. */
async function parseCommandLine(
  argv: readonly string[],
  packageRoot: URL,
  options: EntryOptions,
): Promise<ParsedCommand | undefined> {
  let table: RouteTable;
  if (options.development) {
    const [{ Config }, { routeTableFrom }] = await Promise.all([
      import('@oclif/core'),
      import('./build/route-table-from-oclif.js'),
    ]);
    // As oclif's execute({ development: true }) sets it: the commands are loaded from src/.
    process.env.NODE_ENV = 'development';
    table = await routeTableFrom(await Config.load({ root: fileURLToPath(packageRoot) }));
  } else {
    try {
      table = JSON.parse(readFileSync(new URL('dist/entry/routes.json', packageRoot), 'utf8')) as RouteTable;
    } catch {
      return undefined;
    }
  }
  const found = findRoute(table, argv);
  return found === undefined ? undefined : parseArgv(found.route, found.rest);
}

/**
 * The fast route, once parsed: the runner and the action from the bundle (dist/fast/runner.cjs),
 * from dist/ for the commands left out of it, or from the sources in development.
 */
async function fastRoute(
  parsed: ParsedCommand,
  version: string,
  packageRoot: URL,
  cacheFolder: string | undefined,
  argv: readonly string[],
  options: EntryOptions,
): Promise<void> {
  type Runner = { runNamedAction: typeof runNamedAction };
  if (options.development || unbundledCommands.includes(parsed.id)) {
    const runner: Runner = await import('../cli/runner.js');
    await runner.runNamedAction(parsed, version);
    return;
  }
  // The bundle's one import() of a package (ora, for a spinner: scripts/bundle.mjs), done here.
  (globalThis as Record<symbol, unknown>)[Symbol.for('plants.importModule')] = (specifier: string) => import(specifier);
  const bundle = await loadBundle<Runner>(
    fileURLToPath(new URL('dist/fast/runner.cjs', packageRoot)),
    cacheFolder,
    argv,
  );
  await bundle.exports.runNamedAction(parsed, version);
  bundle.saveCodeCache(process.exitCode === undefined || process.exitCode === 0);
}

/** oclif, with a token the command line may hold masked from what it repeats on stderr. */
async function oclifRoute(argv: readonly string[], packageRoot: URL, options: EntryOptions): Promise<void> {
  const { maskSecretsInDebugOutput } = await import('../cli/secrets.js');
  await maskSecretsInDebugOutput(argv, new URL('oclif.manifest.json', packageRoot), process.stderr);
  const { execute } = await import('@oclif/core');
  await execute({ args: [...argv], dir: options.bin, development: options.development === true });
}
