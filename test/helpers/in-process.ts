import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Interfaces } from '@oclif/core';
import type { Parsed } from '../../src/cli/base-command.js';
import { readEnv } from '../../src/cli/env.js';
import { usageError } from '../../src/cli/help/usage-error.js';
import { IOStreams } from '../../src/cli/io-streams.js';
import { type AnyAction, actionExport, runAction, runParsed } from '../../src/cli/runner.js';
import { knownWordsOf } from '../../src/cli/secrets.js';
import { findRoute, parseArgv } from '../../src/entry/parse-argv.js';
import type { RouteTable } from '../../src/entry/route-table.js';
import { projectRoot } from './cli.js';

/** Which of the streams are terminals, and what stdin holds (after gh's iostreams.Test()). */
export interface TestStreamsOptions {
  /** Written to stdin, which then ends. Without it stdin stays open: write to `stdin` to type. */
  input?: string;
  stdinIsTerminal?: boolean;
  stdoutIsTerminal?: boolean;
  stderrIsTerminal?: boolean;
  /** The width of stdout when it is a terminal. */
  columns?: number;
}

export interface TestStreams {
  io: IOStreams;
  /** What the command reads: write to it to type, end it for end of input. */
  stdin: PassThrough;
  /** What was written to stdout and to stderr so far. */
  readonly stdout: string;
  readonly stderr: string;
}

/** A PassThrough that passes for a terminal where asked: isTTY, a width, raw mode that does nothing. */
function stream(terminal: boolean, columns: number): PassThrough {
  const made = new PassThrough();
  if (terminal) Object.assign(made, { isTTY: true, columns, setRawMode: () => made });
  return made;
}

/** IOStreams over in-memory streams, none a terminal unless asked; stdout and stderr kept as text. */
export function testStreams(options: TestStreamsOptions = {}): TestStreams {
  const stdin = stream(options.stdinIsTerminal ?? false, 0);
  const stdout = stream(options.stdoutIsTerminal ?? false, options.columns ?? 100);
  // A terminal stderr of no width: Output draws no spinner on it (its timers would outlive a test).
  const stderr = stream(options.stderrIsTerminal ?? false, 0);
  const written = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => {
    written.stdout += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    written.stderr += chunk.toString('utf8');
  });
  if (options.input !== undefined) stdin.end(options.input);
  return {
    io: new IOStreams({
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: stderr as unknown as NodeJS.WriteStream,
    }),
    stdin,
    get stdout() {
      return written.stdout;
    },
    get stderr() {
      return written.stderr;
    },
  };
}

/** Streams of a terminal (stdin and stderr), with `answer` already typed at the prompt. */
export function terminalAnswering(answer: string): TestStreams {
  const io = testStreams({ stdinIsTerminal: true, stderrIsTerminal: true });
  io.stdin.write(answer);
  return io;
}

export interface InProcessResult {
  /** The exit code the run ends with: the action's own, else the one error reporting gives, else 0. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  /** The environment plants reads (PLANTS_CONFIG_DIR, PLANTS_BASE_URL, PLANTS_TOKEN…); nothing else of process.env. */
  env: Record<string, string>;
  /** The streams, when the test types into stdin while the action runs (default: testStreams(streams)). */
  io?: TestStreams;
  streams?: TestStreamsOptions;
  /** `--json`: a failure is reported as a JSON document on stdout too. */
  json?: boolean;
}

/**
 * Runs an action in this process as every route runs it (runAction: the Output and Factory over
 * the test's streams, errors reported once) and resolves with its exit code and output.
 */
export async function runInProcess(
  action: Parameters<typeof runAction>[0],
  options: InProcessOptions,
): Promise<InProcessResult> {
  const streams = options.io ?? testStreams(options.streams);
  const code = await runAction(action, {
    io: streams.io,
    env: readEnv(options.env),
    version: '0.0.0-test',
    json: options.json ?? false,
  });
  // Whatever was written is read: a PassThrough hands on its chunks a tick later.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: streams.stdout, stderr: streams.stderr };
}

type Declared = { flags?: Interfaces.FlagInput; args?: Interfaces.ArgInput };

/**
 * A command's flags and arguments as a parse would give them: those `given` (undefined ones left
 * out), the declaration's defaults for the rest.
 */
export function parsedFor<C extends Declared>(
  command: C,
  given: { args?: Partial<Parsed<C>['args']>; flags?: Partial<Parsed<C>['flags']> } = {},
): Parsed<C> {
  const defaults = (declared: Record<string, { default?: unknown }> = {}) =>
    Object.fromEntries(Object.entries(declared).map(([name, { default: value }]) => [name, value]));
  const defined = (values: object = {}) =>
    Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  return {
    flags: { ...defaults(command.flags), ...defined(given.flags) },
    args: { ...defaults(command.args), ...defined(given.args) },
  } as Parsed<C>;
}

/** The route table the build derived from the commands (dist/entry/routes.json, what bin/run.js reads). */
let routes: RouteTable | undefined;

/**
 * Runs a command line in this process as bin/run.js runs it: parsed by the one parser with the
 * build's route table, then the command's action by runInProcess (`--json` as the line says); a
 * line the parser refuses is the usage error it reports. Help, autocomplete and words that are
 * no command run as processes (test/entry/main.node-e2e.test.ts).
 */
export async function runCommandLine(
  argv: readonly string[],
  options: Omit<InProcessOptions, 'json'>,
): Promise<InProcessResult> {
  routes ??= JSON.parse(readFileSync(path.join(projectRoot, 'dist', 'entry', 'routes.json'), 'utf8')) as RouteTable;
  const table = routes;
  const found = findRoute(table, argv);
  const action = found?.route.action;
  if (found === undefined || action === undefined)
    throw new Error(`\`plants ${argv.join(' ')}\` is not run in-process`);
  const { route, rest } = found;
  const parsed = parseArgv(route, rest);
  if ('misuse' in parsed) {
    const error = usageError(parsed.misuse, route, rest, knownWordsOf(Object.entries(table.commands)));
    return runInProcess(() => Promise.reject(error), { ...options, json: rest.includes('--json') });
  }
  // The action's module from src/ as actionNamed (src/cli/runner.ts) names it; vite cannot follow
  // its import of a name it does not know until run time.
  const file = path.join(projectRoot, 'src', 'cli', 'actions', `${action}.ts`);
  const module: Record<string, AnyAction> = await import(/* @vite-ignore */ file);
  return runInProcess((context) => runParsed(module[actionExport(action)] as AnyAction, parsed, context), {
    ...options,
    json: parsed.flags.json === true,
  });
}
