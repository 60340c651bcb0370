import { spawn } from 'node:child_process';
import { binPath } from './cli.js';

export interface TtySession {
  /** Everything the terminal showed so far: stdout and stderr together, as on a screen. */
  readonly screen: string;
  /** Types text at the terminal. */
  type(text: string): void;
  /** Resolves once the screen shows `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code once the CLI has ended. */
  exited: Promise<number | null>;
}

/**
 * Runs the built CLI in a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr
 * are all TTYs, as for a person at a terminal: prompts, spinners and colour switch on.
 */
export function runCliInTty(args: readonly string[], env: Record<string, string>): TtySession {
  return runInTty([process.execPath, binPath, ...args], env);
}

/** `command` (a program's path and its arguments) in a pseudo-terminal, as runCliInTty runs the CLI. */
export function runInTty(command: readonly string[], env: Record<string, string>): TtySession {
  const quoted = command.map((part) => `'${part.replaceAll("'", `'\\''`)}'`).join(' ');
  // A pty made by `script` without a terminal behind it has no size; give it one like a real window.
  const child = spawn('script', ['-qefc', `stty cols 100 rows 30; exec ${quoted}`, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const onData = (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    for (const waiter of waiters.filter((w) => screen.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // A CLI that hangs must not outlive its test (nor keep burning a core after it).
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve(code);
    }),
  );
  return {
    get screen() {
      return screen;
    },
    type(text) {
      child.stdin.write(text);
    },
    waitFor(text, timeoutMs = 10_000) {
      if (screen.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`terminal never showed ${JSON.stringify(text)}:\n${screen}`)),
          timeoutMs,
        );
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    exited,
  };
}
