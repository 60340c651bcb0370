import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's postgresql packages put the server binaries: the newest major version there. */
function findBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : path.join(root, versions[0] as string, 'bin');
}

export const postgresBin = findBinaries();

/**
 * Whether the PostgreSQL tests run. In CI (CI=true) they never skip: missing binaries are a
 * failure there (`.ci/run` installs Debian's postgresql package). Elsewhere they skip with one
 * loud line.
 */
export function postgresTestsEnabled(): boolean {
  if (postgresBin !== undefined) return true;
  if (process.env.CI === 'true') {
    throw new Error(
      'PostgreSQL binaries not found under /usr/lib/postgresql, and CI=true: the PostgreSQL tests never skip in CI',
    );
  }
  warnOnce();
  return false;
}

let warned = false;
function warnOnce(): void {
  if (warned) return;
  warned = true;
  console.warn('!!! PostgreSQL tests SKIPPED: no initdb under /usr/lib/postgresql (apt-get install postgresql) !!!');
}

export interface PostgresCluster {
  host: string;
  port: number;
  /** The superuser (`plants`) and its password: connections over TCP need it (scram-sha-256). */
  user: string;
  password: string;
  /** The folder holding the data directory, the log and the socket. */
  dir: string;
  /** `postgres://plants:PASSWORD@127.0.0.1:PORT/DATABASE`. */
  url(database: string): string;
  /** `pg_ctl stop -m MODE`: `immediate` is a crash (no checkpoint), `fast` a clean stop. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a real PostgreSQL (initdb + pg_ctl) on a free loopback port in a temporary folder.
 * initdb refuses to run as root: then every server command runs as the `postgres` user
 * (runuser), in a folder chowned to it. synchronous_commit stays on: with it off an
 * acknowledged commit may be lost by design, and the crash tests would prove nothing.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBin;
  if (bin === undefined) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(tmpdir(), 'plants-pg-'));
  const asRoot = userInfo().uid === 0;
  const password = randomBytes(12).toString('hex');
  const user = 'plants';
  const pwfile = path.join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(pwfile, 0o600);
  const server = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args], { cwd: dir })
      : run(path.join(bin, command), args, { cwd: dir });
  const data = path.join(dir, 'data');
  let started = false;
  try {
    await server('initdb', [
      '-D',
      data,
      '-U',
      user,
      `--pwfile=${pwfile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    const port = await freePort();
    const start = async () => {
      await server('pg_ctl', [
        '-D',
        data,
        '-l',
        path.join(dir, 'log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=32MB -c synchronous_commit=on`,
        'start',
      ]);
      started = true;
    };
    const stop = async (mode: 'immediate' | 'fast' = 'fast') => {
      if (!started) return;
      await server('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
      started = false;
    };
    await start();
    const url = (database: string) => `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;
    let closed: Promise<void> | undefined;
    return {
      host: '127.0.0.1',
      port,
      user,
      password,
      dir,
      url,
      stop,
      start,
      close() {
        closed ??= stop('immediate').finally(() => rmSync(dir, { recursive: true, force: true }));
        return closed;
      },
    };
  } catch (error) {
    if (started) await server('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function postgresIds(): { uid: number; gid: number } {
  // /etc/passwd: name:x:uid:gid:...
  const line = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' });
  const [, , uid, gid] = line.split(':');
  if (uid === undefined || gid === undefined) throw new Error('there is no postgres user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A loopback port nobody listens on just now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface SwallowingProxy {
  /** The loopback port to connect to instead of the database's. */
  port: number;
  /**
   * From now on, bytes either way are dropped and new connections are held, never answered:
   * a network that swallows packets (no reset, no answer).
   */
  cut(): void;
  /** Resets every connection open now (as a client's time-out would end it). */
  reset(): void;
  /** The network is back: connections cut off are reset, new ones pass. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free loopback port to `127.0.0.1:targetPort` that can swallow traffic, for
 * the fault a stopped server cannot show: a network cut, where nothing tells the client.
 */
export async function startSwallowingProxy(targetPort: number): Promise<SwallowingProxy> {
  let swallowing = false;
  const sockets = new Set<Socket>();
  const server = createServer((downstream) => {
    sockets.add(downstream);
    downstream.on('close', () => sockets.delete(downstream));
    downstream.on('error', () => undefined);
    if (swallowing) return;
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      downstream.destroy();
    });
    upstream.on('error', () => undefined);
    downstream.on('close', () => upstream.destroy());
    downstream.on('data', (chunk) => {
      if (!swallowing) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!swallowing) downstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const reset = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  return {
    port,
    cut() {
      swallowing = true;
    },
    reset,
    restore() {
      reset();
      swallowing = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
