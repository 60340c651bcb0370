/**
 * Instructions a whole process executes, counted by valgrind's callgrind: unlike wall-clock
 * time, not swayed by whatever else the machine does. Not quite the same count on every run
 * (V8's compiler and collector threads interleave differently: seen here, ±1% for `node -e 0`,
 * ±5% for an empty ES module), hence medians of a few runs.
 */
import { node } from './context.js';
import { run } from './processes.js';
import { hasCommand } from './system.js';

export const hasValgrind = hasCommand('valgrind');

/**
 * Instructions of `node args` (or of another Node: `nodePath`; the node process only: children
 * are not traced, but with `followExec` a program it execs in its place is, as a bulk add's
 * restart with its heap flags), with the bench's environment plus `extraEnv`; undefined when
 * valgrind is not installed. Throws if the command fails.
 */
export async function countInstructions(
  args: readonly string[],
  input?: string,
  extraEnv: Record<string, string> = {},
  nodePath: string = node,
  followExec = false,
): Promise<number | undefined> {
  if (!hasValgrind) return undefined;
  const trace = `--trace-children=${followExec ? 'yes' : 'no'}`;
  const valgrind = ['valgrind', '--tool=callgrind', trace, '--callgrind-out-file=/dev/null', nodePath];
  // env(1) execs valgrind in its place: still one process, counted alone.
  const settings = Object.entries(extraEnv).map(([name, value]) => `${name}=${value}`);
  const [command = 'valgrind', ...rest] = settings.length === 0 ? valgrind : ['env', ...settings, ...valgrind];
  const result = await run(command, [...rest, ...args], { timeoutMs: 600_000, stdout: 'ignore', input });
  // After an exec, the last count is of the program that ran to the end.
  const collected = [...result.stderr.matchAll(/Collected : (\d+)/g)].at(-1)?.[1];
  if (result.code !== 0 || collected === undefined) {
    throw new Error(
      `callgrind of node ${args.join(' ')} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
    );
  }
  return Number(collected);
}

/** 1,234,567,890 as "1,235M". */
export function millions(instructions: number): string {
  return `${Math.round(instructions / 1e6).toLocaleString('en-US')}M`;
}

/**
 * Instructions of `node args` with stdout and stderr on a terminal (a pty of script(1)), colour
 * allowed (the bench's NO_COLOR unset); undefined without valgrind or script.
 */
export async function countOnTerminal(args: readonly string[], nodePath: string = node): Promise<number | undefined> {
  if (!hasValgrind || !hasCommand('script')) return undefined;
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = ['env', '-u', 'NO_COLOR', 'valgrind', '--tool=callgrind', '--trace-children=no']
    .concat(['--callgrind-out-file=/dev/null', nodePath, ...args])
    .map(quote)
    .join(' ');
  const result = await run('script', ['-qec', command, '/dev/null'], { timeoutMs: 600_000 });
  const collected = /Collected : (\d+)/.exec(result.stdout)?.[1];
  if (result.code !== 0 || collected === undefined) {
    throw new Error(`callgrind on a terminal of node ${args.join(' ')} failed:\n${result.stdout.slice(-2000)}`);
  }
  return Number(collected);
}
