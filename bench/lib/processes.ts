/** Child processes of the bench: run one to its end, keep track of the live ones, read their CPU time. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { childEnv, pin, work } from './context.js';

/** Every child still running, so that a failed or interrupted run leaves none behind. */
export const live = new Set<ChildProcess>();

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit, ms. */
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after timeoutMs), timing it from spawn to exit. */
export function run(
  command: string,
  args: readonly string[],
  options: {
    timeoutMs: number;
    stdout?: 'pipe' | 'ignore';
    cpu?: number | undefined;
    /** Written to stdin, which is then closed; without it stdin is /dev/null. */
    input?: string;
  } = { timeoutMs: 60_000 },
): Promise<Finished> {
  const [file, argv] = pinned(command, args, options.cpu);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(file, argv, { env: childEnv, cwd: work, stdio: [stdin, options.stdout ?? 'pipe', 'pipe'] });
    live.add(child);
    child.stdin?.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 100_000) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearTimeout(timer);
      live.delete(child);
      // stdio may still be draining: give it its 'close' before resolving.
      const done = () => resolve({ code, signal, ms, stdout, stderr });
      if (child.stdout === null && child.stderr === null) done();
      else child.once('close', done);
    });
  });
}

/** A run's CPU time (user + system, s) and peak RSS (MB), read by GNU time; undefined without it. */
export interface Timed extends Finished {
  cpuSeconds: number | undefined;
  peakMb: number | undefined;
}

/** Whether GNU time is there to read a run's CPU time and peak RSS. */
export const hasTime = existsSync('/usr/bin/time');

/** Runs a command as `run` does, under `/usr/bin/time` (when there is one) for its CPU time and peak RSS. */
export async function timed(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; stdout?: 'pipe' | 'ignore'; cpu?: number | undefined },
): Promise<Timed> {
  if (!hasTime) return { ...(await run(command, args, options)), cpuSeconds: undefined, peakMb: undefined };
  const result = await run('/usr/bin/time', ['-f', 'bench-time %U %S %M', command, ...args], options);
  const match = /bench-time ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(result.stderr);
  return {
    ...result,
    cpuSeconds: match === null ? undefined : Number(match[1]) + Number(match[2]),
    peakMb: match === null ? undefined : Number(match[3]) / 1024,
  };
}

/** The command line that runs `command` on one cpu when pinning is on and a cpu is given. */
export function pinned(command: string, args: readonly string[], cpu: number | undefined): [string, string[]] {
  return pin && cpu !== undefined ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, [...args]];
}

export async function stopAll(): Promise<void> {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Clock ticks per second of /proc/<pid>/stat. */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process so far, from /proc (Linux); undefined elsewhere. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}

/** The pids of every process, by the pid of its parent, from /proc (Linux; empty elsewhere). */
function processTree(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(parent) ?? [];
      list.push(Number(entry));
      children.set(parent, list);
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** The pids of the processes `pid` started and that still run (Linux; empty elsewhere). */
export function childPids(pid: number): number[] {
  return processTree().get(pid) ?? [];
}

/**
 * User + system CPU seconds of a process and every process under it so far (a browser's renderer
 * and GPU processes), from /proc (Linux); undefined elsewhere. Children that have exited and
 * been waited for count in their parent's cutime/cstime, which this leaves out: read it while
 * the tree is alive.
 */
export function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined || cpuSeconds(pid) === undefined) return undefined;
  const children = processTree();
  let total = 0;
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    total += cpuSeconds(next) ?? 0;
    queue.push(...(children.get(next) ?? []));
  }
  return total;
}
