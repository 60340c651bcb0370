/** Servers under test and peers: start one as a child process and know when it is ready. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { childEnv, cli, node, token, work } from './context.js';
import { live, pinned, sleep } from './processes.js';

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
  /** What it wrote on stderr so far (the last 20,000 characters at most). */
  stderr(): string;
}

/**
 * Starts a server process and resolves once it is ready: when it printed its URL as the first
 * stdout line (plants serve, the ceiling), or when `probeUrl` answers any HTTP status (peers).
 */
export function startServer(
  name: string,
  command: string,
  args: readonly string[],
  options: { cpu?: number | undefined; probeUrl?: string; timeoutMs?: number } = {},
): Promise<Server> {
  const [file, argv] = pinned(command, args, options.cpu);
  const child = spawn(file, argv, { env: childEnv, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(child));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`${name}: ${why}\n${stderr.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail('not ready in time'), options.timeoutMs ?? 30_000);
    void exited.then(() => fail(`exited (${child.exitCode ?? child.signalCode}) before it was ready`));
    const ready = (url: string) => {
      clearTimeout(timer);
      if (new URL(url).hostname !== '127.0.0.1') {
        void stop();
        reject(new Error(`${name} listens on ${url}, not on 127.0.0.1: refusing to load it`));
        return;
      }
      resolve({ name, url, child, stop, stderr: () => stderr });
    };
    const probeUrl = options.probeUrl;
    if (probeUrl === undefined) {
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const newline = stdout.indexOf('\n');
        if (newline !== -1) ready(stdout.slice(0, newline).trim());
      });
    } else {
      child.stdout?.resume();
      const probe = async () => {
        while (child.exitCode === null) {
          try {
            await fetch(probeUrl, { signal: AbortSignal.timeout(1000) });
            ready(new URL(probeUrl).origin);
            return;
          } catch {
            await sleep(200);
          }
        }
      };
      void probe();
    }
  });
}

/**
 * `plants serve` on 127.0.0.1, a free port, with the bench's token, over a db file, in memory,
 * or on PostgreSQL (a `postgres://` URL); `--quiet` unless `extra` asks for a log (`--log-format …`).
 */
export function startPlantsServe(
  db: string | 'memory',
  durability: 'full' | 'normal',
  cpu?: number | undefined,
  extra: readonly string[] = [],
): Promise<Server> {
  const store = db === 'memory' ? ['--memory'] : db.startsWith('postgres://') ? ['--database', db] : ['--db', db];
  const quiet = extra.includes('--log-format') ? [] : ['--quiet'];
  return startServer(
    `plants serve --durability ${durability}`,
    node,
    [
      cli,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...quiet,
      '--token',
      token,
      '--durability',
      durability,
      ...store,
      ...extra,
    ],
    { cpu },
  );
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
