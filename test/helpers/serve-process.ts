import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { afterEach } from 'vitest';
import { binPath, projectRoot } from './cli.js';
import { type FixtureScope, suiteFixture } from './fixture.js';

export interface ServeProcess {
  /** The URL `plants serve` printed as its first line. */
  url: string;
  child: ChildProcessWithoutNullStreams;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once stderr shows `text` (stderr and stdout arrive independently). */
  waitForStderr(text: string): Promise<void>;
  /** Sends the signal and resolves with the exit code (or the signal that ended it). */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

export interface ServeProcessOptions {
  /** Run it under `ulimit -n <fdLimit>` (through bash): at most this many open files. */
  fdLimit?: number;
  /** The `plants` to run (an installed one) instead of this checkout's bin/run.js. */
  executable?: string;
}

/**
 * Starts the built `plants serve` as a child process, as a user would, and resolves once it
 * printed its URL. Rejects with what it printed if it exits first.
 */
export function startServeProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  options: ServeProcessOptions = {},
): Promise<ServeProcess> {
  const argv = [
    ...(options.executable === undefined ? [process.execPath, binPath] : [options.executable]),
    'serve',
    ...args,
  ];
  const [command, ...commandArgs] =
    options.fdLimit === undefined ? argv : ['bash', '-c', `ulimit -n ${options.fdLimit} && exec "$0" "$@"`, ...argv];
  const child = spawn(command as string, commandArgs, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`plants serve printed no URL in time:\n${stderr}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      resolve({
        url: stdout.slice(0, newline),
        child,
        get stdout() {
          return stdout;
        },
        get stderr() {
          return stderr;
        },
        waitForStderr(text) {
          return new Promise<void>((resolveWait, rejectWait) => {
            const check = () => {
              if (!stderr.includes(text)) return false;
              child.stderr.off('data', check);
              clearTimeout(waitTimer);
              resolveWait();
              return true;
            };
            const waitTimer = setTimeout(() => {
              child.stderr.off('data', check);
              rejectWait(new Error(`stderr never showed ${JSON.stringify(text)}:\n${stderr}`));
            }, 10_000);
            if (!check()) child.stderr.on('data', check);
          });
        },
        stop(signal = 'SIGTERM') {
          child.kill(signal);
          return exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`plants serve exited (${code}) before printing its URL:\n${stderr}`));
    });
  });
}

/** Whether a process of this id is still there (`kill -0`). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends SIGTERM to a server run with --detach and resolves once it has ended (the test's time-out is the limit). */
export async function stopDetachedServer(pid: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  while (isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

export interface ServeProcesses {
  /** startServeProcess: one more `plants serve`, killed after the test if it still runs. */
  start(args: readonly string[], env?: Record<string, string>, options?: ServeProcessOptions): Promise<ServeProcess>;
}

/**
 * `plants serve` processes for each test of the file or describe it is declared in, each killed
 * (SIGKILL) after its test unless it has ended:
 *
 *   const serves = useServeProcesses();
 *   const serve = await serves.start(['--port', '0', '--memory'], user.env);
 */
export function useServeProcesses(): ServeProcesses {
  const running: ServeProcess[] = [];
  afterEach(async () => {
    for (const serve of running.splice(0))
      if (serve.child.exitCode === null && serve.child.signalCode === null) await serve.stop('SIGKILL');
  });
  return {
    async start(args, env, options) {
      const serve = await startServeProcess(args, env, options);
      running.push(serve);
      return serve;
    },
  };
}

export interface UseServeProcessOptions extends ServeProcessOptions {
  /** Its environment (a temp user's `env`, PLANTS_TOKEN…). */
  env?: Record<string, string>;
  /** 'file' (default): one for the file or describe it is declared in; 'test': a new one for each test. */
  scope?: FixtureScope;
}

/**
 * One `plants serve` for the tests of the file or describe it is declared in, started before them
 * (once it printed its URL) and killed after them unless it has ended:
 *
 *   const serve = useServeProcess(['--port', '0', '--memory', '--token', TOKEN]);
 */
export function useServeProcess(
  args: readonly string[],
  { env, scope = 'file', ...options }: UseServeProcessOptions = {},
): ServeProcess {
  return suiteFixture(
    scope,
    () => startServeProcess(args, env, options),
    async (serve) => {
      if (serve.child.exitCode === null && serve.child.signalCode === null) await serve.stop('SIGKILL');
    },
  );
}
