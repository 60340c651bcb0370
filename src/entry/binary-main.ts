import { closestCommand } from '../cli/help/suggest.js';
import { sizeHeapForBulkAdd } from './bulk-heap.js';
import type { HelpPages } from './help-pages.js';
import { helpSubjects } from './help-subjects.js';
import { findRoute, parseArgv } from './parse-argv.js';
import type { RouteTable } from './route-table.js';
import { exitOnStdoutErrors } from './stdout-errors.js';

/**
 * plants' version, the route table and the help pages oclif rendered (dist/entry/*.json), as
 * one JSON text the build writes into the script (scripts/build-binary.mjs, esbuild's `define`).
 */
declare const PLANTS_BINARY_ENTRY: string;

interface BinaryEntry {
  version: string;
  routes: RouteTable;
  help: HelpPages;
}

/**
 * `plants-linux-x64 ARGV`: main.ts's route without oclif, all of it in one bundle with Node's
 * own code cache of it (scripts/build-binary.mjs). `--version` and the help pages oclif rendered at build time are
 * answered from the binary's assets; a command line the route table parses runs its action,
 * `serve` included (on node:sqlite: stores/sqlite/choose-sqlite-driver.ts). What only oclif
 * answers in the npm package (a command line the table does not take, autocomplete, help at
 * another width) gets a usage error here, exit 2 (127 for a word that is no command), with
 * the command's usage: the binary carries no oclif (docs/binary.md).
 */
export async function binaryMain(argv: readonly string[]): Promise<void> {
  await sizeHeapForBulkAdd(argv, undefined);
  const entry = JSON.parse(PLANTS_BINARY_ENTRY) as BinaryEntry;
  const { version } = entry;
  if (argv[0] === '--version') {
    writeOut(`${userAgent(version)}\n`);
    return;
  }
  const subjects = helpSubjects(argv);
  if (subjects !== undefined) {
    const { pageFrom } = await import('./help-pages.js');
    const page = await pageFrom(entry.help, subjects, version, async () => true);
    if (page !== undefined) {
      writeOut(page);
      return;
    }
  }
  exitOnStdoutErrors();
  const table = entry.routes;
  const found = findRoute(table, argv);
  const parsed = found === undefined || subjects !== undefined ? undefined : parseArgv(found.route, found.rest);
  if (parsed !== undefined) {
    const { runNamedAction } = await import('../cli/runner.js');
    await runNamedAction(parsed, version);
    // The command is over and what it wrote is out (stdout and stderr are synchronous on Linux,
    // and an error of theirs is told by then: exitOnStdoutErrors); a connection left open is the
    // exit's to close. Exiting here spares tearing down a heap and an environment that the
    // process is about to lose (docs/binary.md).
    setImmediate(() => process.exit());
    return;
  }
  process.exitCode = refuse(argv, table, found?.route.id);
}

/**
 * A quick answer, written to fd 1 at once: process.stdout is a stream Node sets up on first use,
 * which costs more than the rest of `--version` (bench l). Where the write fails as a stream's
 * would, it ends as exitOnStdoutErrors says (141 for a reader gone, 74 otherwise); a pipe that
 * is full (EAGAIN) gets the rest through the stream.
 */
function writeOut(text: string): void {
  const { writeSync } = process.getBuiltinModule('node:fs');
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
      exitOnStdoutErrors();
      process.stdout.emit('error', error);
      return;
    }
    exitOnStdoutErrors();
    process.stdout.write(bytes.subarray(written));
  }
}

/** `plants/VERSION linux-x64 node-vN`, as oclif writes it (oclif-user-agent.ts; WSL taken as Linux here). */
function userAgent(version: string): string {
  return `plants/${version} ${process.platform}-${process.arch === 'ia32' ? 'x86' : process.arch} node-${process.version}`;
}

/**
 * A command line the route table does not take, said in the voice of the npm package's
 * messages; the exit code (2: usage, 127: no such command, as the npm package's).
 */
function refuse(argv: readonly string[], table: RouteTable, id: string | undefined): number {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (id !== undefined) {
    const words = id.replaceAll(':', ' ');
    write(
      `plants: this command line of \`plants ${words}\` could not be read: an unknown, repeated or misplaced flag, a flag without its value or with a value it does not take, or an argument too many or missing.`,
    );
    write(`  See \`plants ${words} --help\`.`);
    write('  (This single executable reads command lines exactly as its help shows them; the npm package says more.)');
    return 2;
  }
  const first = argv[0] ?? '';
  if (first.startsWith('-') || first === 'help' || first === 'autocomplete') {
    write(`plants: the single executable does not take \`${argv.join(' ').slice(0, 60)}\`.`);
    write('  Run `plants --help` for its commands; autocomplete comes with the npm package only.');
    return 2;
  }
  const guess = closestCommand(first, Object.keys(table.commands));
  if (guess === undefined) write('plants: that is not a plants command (the word is not repeated here).');
  else {
    write(`plants: '${first.slice(0, 40)}' is not a plants command.`);
    write(`  Did you mean \`plants ${guess}\`?`);
  }
  write('  Run `plants help` for a list of commands.');
  return 127;
}
