import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const binPath = path.join(projectRoot, 'bin', 'run.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Extra environment; the rest is a clean one (PATH, HOME, an isolated PLANTS_CONFIG_DIR). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Without it stdin is an empty closed pipe. */
  input?: string;
  timeoutMs?: number;
  /**
   * Run through oclif alone, as if the entry had no fast route, so that tests can check that
   * both ways behave the same.
   */
  viaOclif?: boolean;
  /** Options for node itself, before the script (e.g. `--require` of a probe). */
  nodeArgs?: readonly string[];
  /** The folder it runs in (default: the project root). */
  cwd?: string;
  /** A file descriptor to give it as stdout (e.g. /dev/full) instead of a pipe; `stdout` then stays empty. */
  stdoutFd?: number;
}

/** A temporary folder, removed by the returned function. */
export function makeTempDir(prefix = 'plants-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** What it printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when it has ended and its output is complete. */
  exited: Promise<CliResult>;
}

/**
 * Starts the built CLI (`bin/run.js`, as `npm ci` leaves it) as a child process, the way a
 * user's shell would: no TTY, a clean environment (PATH, HOME, LANG and what `env` adds).
 * Its stdin stays open for the test to write to.
 */
export function spawnCli(args: readonly string[], options: Omit<RunCliOptions, 'input'> = {}): CliProcess {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    LANG: 'C.UTF-8',
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value !== undefined) env[key] = value;
  }
  const entry = options.viaOclif
    ? [
        '--input-type=module',
        '-e',
        `import { execute } from '@oclif/core'; await execute({ dir: ${JSON.stringify(binPath)}, args: process.argv.slice(1) });`,
        '--',
      ]
    : [binPath];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry, ...args], {
    cwd: options.cwd ?? projectRoot,
    env,
    stdio: ['pipe', options.stdoutFd ?? 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // A test may stop writing to a CLI that has already ended.
  child.stdin.on('error', () => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
  };
}

/** Runs the built CLI to its end (see spawnCli), with `input` on stdin. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  const running = spawnCli(args, options);
  running.child.stdin.end(options.input ?? '');
  return running.exited;
}

/** A bulk add's stdout: its NDJSON result lines, parsed. */
export function resultLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
