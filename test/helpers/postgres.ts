import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

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
 * A temporary folder for PostgreSQL servers, with a password file for initdb, and how to run a
 * server command there: initdb refuses to run as root, so as root every server command runs as
 * the `postgres` user (runuser), in a folder chowned to it.
 */
function serverFolder(prefix: string) {
  const bin = postgresBin;
  if (bin === undefined) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
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
  /** A new cluster in `data`, owned by `user` with the password, reached over TCP with it. */
  const initdb = (data: string) =>
    server('initdb', [
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
  return { dir, password, user, server, initdb };
}

/**
 * Starts a real PostgreSQL (initdb + pg_ctl) on a free loopback port in a temporary folder.
 * initdb refuses to run as root: then every server command runs as the `postgres` user
 * (runuser), in a folder chowned to it. synchronous_commit stays on: with it off an
 * acknowledged commit may be lost by design, and the crash tests would prove nothing.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const { dir, password, user, server, initdb } = serverFolder('plants-pg-');
  const data = path.join(dir, 'data');
  let started = false;
  try {
    await initdb(data);
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

/**
 * For a shell that runs PostgreSQL's own commands in `dir` as docs/postgres.md shows them: as
 * root, which initdb refuses, `dir` is given to the postgres user and initdb and pg_ctl are bash
 * functions running the commands of those names as that user (runuser); else nothing is needed.
 */
export function postgresShellPrelude(dir: string): string {
  if (userInfo().uid !== 0) return '';
  const { uid, gid } = postgresIds();
  chownSync(dir, uid, gid);
  return ['initdb', 'pg_ctl']
    .map((name) => `${name}() { runuser -u postgres -- "$(type -P ${name})" "$@"; }`)
    .join('\n');
}

function postgresIds(): { uid: number; gid: number } {
  // /etc/passwd: name:x:uid:gid:...
  const line = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' });
  const [, , uid, gid] = line.split(':');
  if (uid === undefined || gid === undefined) throw new Error('there is no postgres user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PostgresProxy {
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
  /**
   * The next statement whose text holds `statement` goes through to the database, and its
   * answer is dropped: read up to its ReadyForQuery (so the statement has committed), never
   * passed on. Then every connection is cut and the port refuses connections (it is closed) for
   * `refuseMs`, as when the database goes away right after a commit, before its client heard of it.
   * Resolves once the answer was dropped and the connections cut.
   */
  dropAnswerTo(statement: string, refuseMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free loopback port to `127.0.0.1:targetPort` that can swallow traffic, for
 * the fault a stopped server cannot show: a network cut, where nothing tells the client; or
 * drop the answer to one statement, so that its client cannot know it committed.
 */
export async function startPostgresProxy(targetPort: number): Promise<PostgresProxy> {
  let swallowing = false;
  let closed = false;
  const sockets = new Set<Socket>();
  /** Armed by dropAnswerTo: the statement to watch for, and what to do once its answer is in. */
  let dropping: { statement: Buffer; dropped: () => void } | undefined;
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
    /** Set once this connection carried the watched statement: its answer is read, not passed on. */
    let answer: { bytes: Buffer; dropped: () => void } | undefined;
    downstream.on('data', (chunk: Buffer) => {
      if (swallowing) return;
      if (dropping !== undefined && chunk.includes(dropping.statement)) {
        answer = { bytes: Buffer.alloc(0), dropped: dropping.dropped };
        dropping = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallowing) return;
      if (answer === undefined) {
        downstream.write(chunk);
        return;
      }
      answer.bytes = Buffer.concat([answer.bytes, chunk]);
      if (!hasReadyForQuery(answer.bytes)) return;
      const { dropped } = answer;
      answer.dropped = () => undefined;
      dropped();
    });
  });
  const listen = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  let port = 0;
  await listen();
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
  const reset = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  let refusing: NodeJS.Timeout | undefined;
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
    dropAnswerTo(statement, refuseMs) {
      return new Promise<void>((resolve) => {
        dropping = {
          statement: Buffer.from(statement),
          dropped: () => {
            server.close();
            reset();
            refusing = setTimeout(() => {
              if (!closed) void listen();
            }, refuseMs);
            resolve();
          },
        };
      });
    },
    async close() {
      closed = true;
      clearTimeout(refusing);
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Whether backend messages from the start of `bytes` reach a ReadyForQuery ('Z'): each message
 * is a type byte and a 4-byte length that counts itself. PostgreSQL sends it once the statement
 * has committed (or failed).
 */
function hasReadyForQuery(bytes: Buffer): boolean {
  let at = 0;
  while (at + 5 <= bytes.length) {
    if (bytes[at] === 0x5a) return true;
    at += 1 + bytes.readUInt32BE(at + 1);
  }
  return false;
}

/** One server of a replicated pair. */
export interface PostgresNode {
  /** `a` or `b`, as in the pair's URL order. */
  name: string;
  port: number;
  /** `postgres://plants:PASSWORD@127.0.0.1:PORT/DATABASE`, this server alone. */
  url(database: string): string;
  /** `pg_ctl stop -m MODE`. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on its port, as it was (a former primary comes back out of recovery, writable). */
  start(): Promise<void>;
  readonly running: boolean;
}

export interface PostgresPair {
  /** Both servers, in the URL's order; `a` starts as the primary. */
  nodes: readonly [PostgresNode, PostgresNode];
  /** The server that takes writes now (as the pair's own failovers left it). */
  readonly primary: PostgresNode;
  /** The other one: after failover(), the former primary, down until reseed() (or start(), as it was). */
  readonly standby: PostgresNode;
  /** Both servers in one libpq multi-host URL, `?target_session_attrs=read-write`. */
  url(database: string): string;
  /** `CREATE DATABASE` on the primary (it replicates): its name, and the pair's URL for it. */
  createDatabase(): Promise<{ name: string; url: string }>;
  /**
   * Crashes the primary (`pg_ctl stop -m immediate`) and promotes the standby (`pg_ctl promote`).
   * Resolves with the time (Date.now()) `pg_ctl promote` was started, and when it returned.
   */
  failover(): Promise<{ promoteStarted: number; promoted: number }>;
  /**
   * Makes the server that is down (the former primary) a synchronous standby of the primary
   * again: its data removed, a fresh `pg_basebackup -R` taken, started, and waited for until
   * the primary reports it `sync`.
   */
  reseed(): Promise<void>;
  /** Stops both and removes the folder. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * A primary and a streaming-replication standby (`pg_basebackup -R`) on loopback, with
 * synchronous replication: the primary has `synchronous_standby_names = '*'` and
 * `synchronous_commit = on`, so a commit is acknowledged only once the standby has it on disk.
 * The setting lives in the primary's postgresql.auto.conf (ALTER SYSTEM), set after the standby
 * was copied: a standby promoted takes writes alone (it has no standby of its own until
 * reseed(), which sets it on the new primary), while a former primary started as it was still
 * waits for a standby, as it would in production.
 */
export async function startPostgresPair(): Promise<PostgresPair> {
  const { dir, password, user, server, initdb } = serverFolder('plants-pg-pair-');
  const nodes: Array<PostgresNode & { data: string; started: boolean }> = [];
  const makeNode = async (name: string): Promise<(typeof nodes)[number]> => {
    const port = await freePort();
    const data = path.join(dir, name);
    const node = {
      name,
      port,
      data,
      started: false,
      get running() {
        return node.started;
      },
      url: (database: string) => `postgres://${user}:${password}@127.0.0.1:${port}/${database}`,
      async start() {
        await server('pg_ctl', [
          '-D',
          data,
          '-l',
          path.join(dir, `${name}.log`),
          '-w',
          '-t',
          '30',
          '-o',
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB -c synchronous_commit=on -c cluster_name=${name}`,
          'start',
        ]);
        node.started = true;
      },
      async stop(mode: 'immediate' | 'fast' = 'fast') {
        if (!node.started) return;
        await server('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
        node.started = false;
      },
    };
    return node;
  };
  const sql = (node: PostgresNode, text: string) => runSqlOn(node.url('postgres'), text);
  const baseBackup = async (from: PostgresNode, to: (typeof nodes)[number]) => {
    rmSync(to.data, { recursive: true, force: true });
    await server('pg_basebackup', [
      '-D',
      to.data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-d',
      `host=127.0.0.1 port=${from.port} user=${user} password=${password}`,
    ]);
    await to.start();
  };
  const makeSynchronous = async (primary: PostgresNode) => {
    await sql(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await sql(primary, 'SELECT pg_reload_conf()');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await sql(primary, "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'");
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error('the standby did not become synchronous within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    const a = await makeNode('a');
    const b = await makeNode('b');
    nodes.push(a, b);
    await initdb(a.data);
    await a.start();
    await baseBackup(a, b);
    await makeSynchronous(a);
    let primary: PostgresNode = a;
    let standby: PostgresNode = b;
    let closed: Promise<void> | undefined;
    return {
      nodes: [a, b],
      get primary() {
        return primary;
      },
      get standby() {
        return standby;
      },
      url: (database: string) =>
        `postgres://${user}:${password}@127.0.0.1:${a.port},127.0.0.1:${b.port}/${database}?target_session_attrs=read-write`,
      async createDatabase() {
        const name = `t_${randomBytes(6).toString('hex')}`;
        await sql(primary, `CREATE DATABASE ${name}`);
        return {
          name,
          url: `postgres://${user}:${password}@127.0.0.1:${a.port},127.0.0.1:${b.port}/${name}?target_session_attrs=read-write`,
        };
      },
      async failover() {
        await primary.stop('immediate');
        const promoteStarted = Date.now();
        const next = nodes.find((node) => node === standby) as (typeof nodes)[number];
        await server('pg_ctl', ['-D', next.data, '-w', '-t', '30', 'promote']);
        const promoted = Date.now();
        standby = primary;
        primary = next;
        return { promoteStarted, promoted };
      },
      async reseed() {
        const down = nodes.find((node) => node === standby) as (typeof nodes)[number];
        await down.stop('immediate');
        await baseBackup(primary, down);
        await makeSynchronous(primary);
      },
      close() {
        closed ??= Promise.all(nodes.map((node) => node.stop('immediate').catch(() => undefined))).then(() =>
          rmSync(dir, { recursive: true, force: true }),
        );
        return closed;
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop('immediate').catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function runSqlOn(url: string, text: string): Promise<unknown[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
