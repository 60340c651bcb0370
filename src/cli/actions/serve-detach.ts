import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { InvalidInputError } from '../../errors.js';
import type { PlantServerOptions } from '../../server/server-options.js';

/**
 * What `plants serve --detach` hands to its background server, tokens included: over IPC, not on
 * a command line that `ps` shows. The server's own options, but for the files it reads.
 */
export type DetachedServePlan = Pick<
  PlantServerOptions,
  'host' | 'port' | 'database' | 'tokens' | 'durability' | 'logFormat' | 'logLevel' | 'metrics' | 'metricsToken'
> &
  Pick<PlantServerOptions, 'corsOrigins' | 'allowReset' | 'delay' | 'faults' | 'faultSeed'> & {
    /** Where to keep the made-up token once the server listens. */
    tokenFile?: string | undefined;
    tls: { certPath: string; keyPath: string } | undefined;
    /** Read by the server that runs (the background one with --detach). */
    seedFile?: string | undefined;
  };

type ReadyMessage = { type: 'ready'; url: string };

/**
 * Starts `plants serve` in its own session (Ctrl-C does not reach it) and waits until it listens;
 * then nothing of it is left attached, so `$(…)` and `| head` return.
 */
export async function startDetachedServer(options: {
  plan: DetachedServePlan;
  /** process.argv[1]; undefined for the single executable, which is plants itself. */
  script: string | undefined;
  stderr: NodeJS.WritableStream;
  pidFile: string | undefined;
}): Promise<{ url: string; pid: number } | { exitCode: number }> {
  const script = options.script === undefined ? [] : [options.script];
  const child = spawn(process.execPath, [...script, 'serve', '--detached-child'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const forward = (chunk: Buffer) => options.stderr.write(chunk);
  child.stderr?.on('data', forward);
  child.send(options.plan);
  const outcome = await new Promise<ReadyMessage | { exitCode: number }>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: ReadyMessage) => resolve(message));
    // 'close': it ended and its stderr is all passed on.
    child.once('close', (code) => resolve({ exitCode: code ?? 1 }));
  });
  if ('exitCode' in outcome) return outcome;
  child.stderr?.off('data', forward);
  child.stderr?.destroy();
  child.disconnect();
  child.unref();
  const pid = child.pid ?? 0;
  if (options.pidFile !== undefined) {
    try {
      writeFileSync(options.pidFile, `${pid}\n`);
    } catch (error) {
      process.kill(pid, 'SIGTERM');
      throw new InvalidInputError(`--pid-file ${options.pidFile}: ${(error as Error).message}`, { cause: error });
    }
  }
  return { url: outcome.url, pid };
}

export function receiveDetachedPlan(): Promise<DetachedServePlan> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) {
      reject(new InvalidInputError('--detached-child is for plants serve --detach only'));
      return;
    }
    process.once('message', (plan: DetachedServePlan) => resolve(plan));
  });
}

/** Tells the parent; a later write to stderr, no longer read, would fail with EPIPE: ignored. */
export function reportDetachedReady(url: string, stderr: NodeJS.WritableStream): void {
  stderr.on('error', () => {});
  const message: ReadyMessage = { type: 'ready', url };
  process.send?.(message, () => process.disconnect?.());
}
