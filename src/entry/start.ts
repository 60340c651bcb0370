import type { runCommandLine } from '../cli/runner.js';
import { sizeHeapForBulkAdd } from './bulk-heap.js';
import { findRoute } from './parse-argv.js';
import type { CommandRoute, RouteTable } from './route-table.js';
import { exitOnStdoutErrors } from './stdout-errors.js';

/** What differs between the npm package (main.ts) and the single executable (binary.ts): where things come from. */
export interface Distribution {
  version: string;
  /** The script to start again with a bulk add's heap flags (bulk-heap.ts); none in the single executable. */
  script?: URL;
  /** Help oclif rendered at build time for the first of `subjects`. */
  helpPage(subjects: readonly string[]): Promise<string | undefined>;
  routes(): Promise<RouteTable>;
  /** The runner for a command, and what to do once it ran (`succeeded`: exit 0). */
  runner(route: CommandRoute): Promise<{ runCommandLine: typeof runCommandLine; ran(succeeded: boolean): void }>;
  /** oclif, for what only it renders (help at another width, autocomplete); none in the single executable. */
  oclif?: (argv: readonly string[]) => Promise<void>;
}

/**
 * `plants ARGV`, in both distributions: `--version`; help oclif rendered at build time; a word that
 * is no command (exit 127); then the command line, parsed and run. oclif renders only the rest.
 */
export async function startPlants(argv: readonly string[], distribution: Distribution): Promise<void> {
  await sizeHeapForBulkAdd(argv, distribution.script);
  const { version, oclif } = distribution;
  const toOclif = async () => {
    if (oclif !== undefined) return oclif(argv);
    process.stderr.write(
      `plants: the single executable has no help page for \`plants ${argv.join(' ').slice(0, 60)}\`.\n  Run \`plants --help\` for its commands.\n`,
    );
    process.exitCode = 2;
  };
  if (argv[0] === '--version') {
    const { oclifUserAgent, userAgent } = await import('../cli/help/oclif-user-agent.js');
    // Under what oclif may take for WSL, its own words where there is an oclif.
    const agent = oclifUserAgent(version) ?? (oclif === undefined ? userAgent(version) : undefined);
    return agent === undefined ? toOclif() : writeOut(`${agent}\n`);
  }
  const help = helpSubjects(argv);
  const table = help === undefined ? await distribution.routes() : undefined;
  const found = table === undefined ? undefined : findRoute(table, argv);
  if (found === undefined) {
    // A topic alone (`plants plant`) asks for its help.
    const topic = table === undefined || (argv.length === 1 && table.topics.includes(argv[0] as string));
    const page = topic ? await distribution.helpPage(help ?? argv) : undefined;
    if (page !== undefined) return writeOut(page);
    if (topic) return toOclif();
    const { unknownCommand } = await import('../cli/help/suggest.js');
    const commands = Object.entries(table.commands).flatMap(([words, route]) => (route.hidden ? [] : [words]));
    process.stderr.write(unknownCommand(argv, commands, table.topics));
    process.exitCode = 127;
    return;
  }
  exitOnStdoutErrors();
  const runner = await distribution.runner(found.route);
  await runner.runCommandLine(Object.entries((table as RouteTable).commands), found.route, found.rest, {
    version,
    ...(oclif === undefined ? {} : { oclif: () => oclif(argv) }),
  });
  runner.ran(process.exitCode === undefined || process.exitCode === 0);
}

/** The pages a command line asks for, the first found answering (`help add`: a help topic, else `add`). */
function helpSubjects(argv: readonly string[]): string[] | undefined {
  if (argv.length === 0) return [''];
  if (argv[0] === 'help') {
    // `help add --help` asks for the same page as `help add`.
    const words = argv.slice(1).filter((word) => word !== '--help' && word !== '-h');
    if (words.some((word) => word.startsWith('-'))) return undefined;
    return words.length === 0 ? [''] : [['help', ...words].join(' '), words.join(' ')];
  }
  const end = argv.indexOf('--');
  const before = end === -1 ? argv : argv.slice(0, end);
  if (!before.includes('--help') && !before.includes('-h')) return undefined;
  const words: string[] = [];
  for (const word of before) {
    if (word.startsWith('-')) break;
    words.push(word);
  }
  return [words.join(' ')];
}

/**
 * A quick answer written to fd 1: setting up process.stdout costs more than the rest of
 * `--version` (bench l). A failed write ends as a stream's would; a full pipe (EAGAIN) gets the rest
 * through the stream.
 */
function writeOut(text: string): void {
  const { writeSync } = process.getBuiltinModule('node:fs');
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    exitOnStdoutErrors();
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') process.stdout.emit('error', error);
    else process.stdout.write(bytes.subarray(written));
  }
}
