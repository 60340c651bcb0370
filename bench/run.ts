/**
 * `npm run bench`: how fast `plants` is against the limits of this machine, measured in one run.
 *
 * Every server, client and load generator is a process of this tree, on 127.0.0.1 only. Absolute
 * figures swing with whatever else the machine does; the ratios, taken between rows measured back
 * to back in the same round, are what to read. It builds nothing: it runs bin/run.js over dist/
 * as `npm ci` left them.
 *
 * BENCH_QUICK=1: a smoke run of about 30 s (fewer runs, smaller files, shorter loads, no peers).
 * BENCH_PIN=0: do not pin the server under test and its load generator to separate cores.
 * BENCH_ROWS=a,c: only these groups of rows (a start-up, b bulk, c server, d listing); default all.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bench = path.join(root, 'bench');
const cli = path.join(root, 'bin', 'run.js');
const node = process.execPath;
const require = createRequire(import.meta.url);
const quick = process.env.BENCH_QUICK === '1';
const groups = new Set((process.env.BENCH_ROWS ?? 'a,b,c,d').split(',').map((group) => group.trim()));

/** Every count and duration of the run, in one place. */
const plan = quick
  ? {
      startupRuns: 7,
      startupWarmup: 2,
      bulkRecords: 20_000,
      bulkRuns: 1,
      rssRecords: 50_000,
      serverRuns: 1,
      serverSeconds: 3,
      warmupSeconds: 1,
      peers: false,
    }
  : {
      startupRuns: 20,
      startupWarmup: 3,
      bulkRecords: 100_000,
      bulkRuns: 3,
      rssRecords: 1_000_000,
      serverRuns: 3,
      serverSeconds: 8,
      warmupSeconds: 2,
      peers: true,
    };
/** The load of the server rows: autocannon, this many connections, one request each at a time. */
const serverLoad = { connections: 100, pipelining: 1 };
/** The ceiling of the bulk row: one undici Pool, connections × pipelining requests in flight. */
const bulkCeiling = { connections: 10, pipelining: 10 };

const cores = os.cpus().length;
const pin = process.env.BENCH_PIN !== '0' && cores >= 2 && hasCommand('taskset');
const token = `bench-${randomBytes(12).toString('hex')}`;
const work = mkdtempSync(path.join(os.tmpdir(), 'plants-bench-'));
const configDir = path.join(work, 'config');
mkdirSync(configDir, { mode: 0o700 });

/** The environment of every child: no proxy (everything stays on 127.0.0.1), a config folder of our own. */
const childEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? work,
  PLANTS_CONFIG_DIR: configDir,
  PLANTS_DATA_DIR: path.join(work, 'data'),
  PLANTS_TOKEN: token,
  NO_COLOR: '1',
  NO_PROXY: '127.0.0.1,localhost',
  no_proxy: '127.0.0.1,localhost',
};

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

const live = new Set<ChildProcess>();

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit, ms. */
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after timeoutMs), timing it from spawn to exit. */
function run(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; stdout?: 'pipe' | 'ignore'; cpu?: number } = { timeoutMs: 60_000 },
): Promise<Finished> {
  const [file, argv] = pinned(command, args, options.cpu);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(file, argv, { env: childEnv, cwd: work, stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'] });
    live.add(child);
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

function pinned(command: string, args: readonly string[], cpu: number | undefined): [string, string[]] {
  return pin && cpu !== undefined ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, [...args]];
}

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a server process and resolves once it is ready: when it printed its URL as the first
 * stdout line (plants serve, the ceiling), or when `probeUrl` answers any HTTP status (peers).
 */
function startServer(
  name: string,
  command: string,
  args: readonly string[],
  options: { cpu?: number; probeUrl?: string; timeoutMs?: number } = {},
): Promise<Server> {
  const [file, argv] = pinned(command, args, options.cpu);
  const child = spawn(file, argv, { env: childEnv, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 20_000) stderr += chunk;
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
      resolve({ name, url, child, stop });
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

function startPlantsServe(db: string | 'memory', durability: 'full' | 'normal', cpu?: number): Promise<Server> {
  const store = db === 'memory' ? ['--memory'] : ['--db', db];
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
      '--quiet',
      '--token',
      token,
      '--durability',
      durability,
      ...store,
    ],
    { cpu },
  );
}

async function stopAll(): Promise<void> {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function freshDir(label: string): string {
  return mkdtempSync(path.join(work, `${label}-`));
}

function writeNdjson(file: string, count: number, firstId: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file);
    out.once('error', reject);
    let id = firstId;
    const end = firstId + count;
    const write = () => {
      while (id < end) {
        let chunk = '';
        for (let i = 0; i < 1000 && id < end; i++, id++) chunk += `{"id":${id},"name":"plant ${id}","tag":"bench"}\n`;
        if (!out.write(chunk)) {
          out.once('drain', write);
          return;
        }
      }
      out.end(resolve);
    };
    write();
  });
}

function countRows(db: string): number {
  const connection = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return Number(connection.prepare('SELECT count(*) FROM plants').pluck().get());
  } finally {
    connection.close();
  }
}

function progress(text: string): void {
  process.stderr.write(`  … ${text}\n`);
}

const format = {
  ms: (value: number) => `${value.toFixed(0)} ms`,
  rate: (value: number, unit: string) => `${Math.round(value).toLocaleString('en-US')} ${unit}`,
  ratio: (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}` : 'n/a'),
  times: (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a'),
  spread: (values: readonly number[], show: (value: number) => string) =>
    values.length < 2 ? '' : `${show(Math.min(...values))} – ${show(Math.max(...values))}`,
};

interface Row {
  id: string;
  what: string;
  median: string;
  spread: string;
  ratio: string;
  goal: string;
  result: string;
  /** Server rows: CPU time of the server process per request (less swayed by a busy machine). */
  cpu?: string;
}

function verdict(met: boolean | undefined): string {
  return met === undefined ? '' : met ? 'yes' : 'NO';
}

// ---------------------------------------------------------------------------------------------
// a. Start-up: whole processes
// ---------------------------------------------------------------------------------------------

async function startupRows(): Promise<Row[]> {
  const server = await startPlantsServe('memory', 'normal');
  try {
    let nextId = 1;
    const commands: Array<{ name: string; args: () => string[] }> = [
      { name: 'node -e 0', args: () => ['-e', '0'] },
      {
        name: 'node:http POST (floor)',
        args: () => [path.join(bench, 'floor-post.mjs'), server.url, token, String(nextId++)],
      },
      { name: 'plants --version', args: () => [cli, '--version'] },
      {
        name: 'plants add --id N --name x',
        args: () => [cli, 'add', '--id', String(nextId++), '--name', 'x', '--base-url', server.url],
      },
    ];
    const times = commands.map(() => [] as number[]);
    const rounds = plan.startupWarmup + plan.startupRuns;
    for (let round = 0; round < rounds; round++) {
      // Round robin, so that a slow spell of the machine hits every command alike.
      for (const [index, command] of commands.entries()) {
        const result = await run(node, command.args(), { timeoutMs: 30_000, stdout: 'ignore' });
        if (result.code !== 0) {
          throw new Error(
            `${command.name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
          );
        }
        if (round >= plan.startupWarmup) times[index]?.push(result.ms);
      }
    }
    const perRound = (index: number, base: number) =>
      median((times[index] ?? []).map((ms, round) => ms / (times[base]?.[round] ?? Number.NaN)));
    const [bare, floor, version, add] = [0, 1, 2, 3].map((index) => median(times[index] ?? []));
    const versionRatio = perRound(2, 0);
    const addRatio = perRound(3, 0);
    const row = (id: string, index: number, value: number | undefined, ratio: string, goal = '', result = '') => ({
      id,
      what: commands[index]?.name ?? '',
      median: format.ms(value ?? Number.NaN),
      spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
      ratio,
      goal,
      result,
    });
    return [
      row('a1', 0, bare, '1.00x node -e 0'),
      row('a2', 1, floor, `${format.times(perRound(1, 0))} node -e 0`),
      row('a3', 2, version, `${format.times(versionRatio)} node -e 0`, '≤ 2x node -e 0', verdict(versionRatio <= 2)),
      row(
        'a4',
        3,
        add,
        `${format.times(addRatio)} node -e 0, ${format.times(perRound(3, 1))} floor`,
        '≤ 2.5x node -e 0',
        verdict(addRatio <= 2.5),
      ),
    ];
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// b. Bulk: plants add --file against an undici Pool with pipelining
// ---------------------------------------------------------------------------------------------

/** Whether this plants has bulk `--file` (NDJSON in, one NDJSON result per record out). */
async function bulkSupport(): Promise<string | undefined> {
  const server = await startPlantsServe('memory', 'normal');
  try {
    const file = path.join(work, 'two.ndjson');
    writeFileSync(file, '{"id":1,"name":"one"}\n{"id":2,"name":"two"}\n');
    const result = await run(node, [cli, 'add', '--file', file, '--base-url', server.url], { timeoutMs: 30_000 });
    const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
    const json = lines.every((line) => {
      try {
        JSON.parse(line);
        return true;
      } catch {
        return false;
      }
    });
    if (result.code === 0 && lines.length === 2 && json) return undefined;
    const why = result.stderr.split('\n').find((line) => line.trim() !== '') ?? `${lines.length} lines on stdout`;
    return `exit ${result.code ?? result.signal}: ${why.trim().slice(0, 80)}`;
  } finally {
    await server.stop();
  }
}

async function bulkRows(): Promise<Row[]> {
  const unavailable = await bulkSupport();
  const label = plan.bulkRecords.toLocaleString('en-US');
  const rssLabel = plan.rssRecords.toLocaleString('en-US');
  const na = (id: string, what: string, goal: string): Row => ({
    id,
    what,
    median: 'n/a (bulk mode not available)',
    spread: '',
    ratio: '',
    goal,
    result: '',
  });
  const ceilingName = `undici Pool ${bulkCeiling.connections}×${bulkCeiling.pipelining} pipelined (ceiling)`;
  const file = path.join(work, 'bulk.ndjson');
  await writeNdjson(file, plan.bulkRecords, 1);
  const ceiling: number[] = [];
  const plants: number[] = [];
  const ratios: number[] = [];

  /** One side of a round: a fresh durable server over a fresh file, so that no id collides. */
  const side = async (client: (url: string) => Promise<Finished>, name: string): Promise<number> => {
    const dir = freshDir('bulk');
    const db = path.join(dir, 'plants.db');
    const server = await startPlantsServe(db, 'full', pin ? 0 : undefined);
    let result: Finished;
    try {
      result = await client(server.url);
    } finally {
      await server.stop();
    }
    if (result.code !== 0)
      throw new Error(`${name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`);
    const stored = countRows(db);
    rmSync(dir, { recursive: true, force: true });
    if (stored !== plan.bulkRecords) throw new Error(`${name}: ${stored} plants stored of ${plan.bulkRecords}`);
    return plan.bulkRecords / (result.ms / 1000);
  };
  const viaPool = (url: string) =>
    run(node, [path.join(bench, 'load-pool.mjs'), JSON.stringify({ url, token, file, ...bulkCeiling })], {
      timeoutMs: 600_000,
      cpu: pin ? 1 : undefined,
    });
  const viaCli = (url: string) =>
    run(node, [cli, 'add', '--file', file, '--base-url', url], {
      timeoutMs: 600_000,
      stdout: 'ignore',
      cpu: pin ? 1 : undefined,
    });

  for (let round = 0; round < plan.bulkRuns; round++) {
    progress(`bulk round ${round + 1}/${plan.bulkRuns}: ${ceilingName}`);
    const top = await side(viaPool, ceilingName);
    ceiling.push(top);
    if (unavailable !== undefined) continue;
    progress(`bulk round ${round + 1}/${plan.bulkRuns}: plants add --file`);
    const mine = await side(viaCli, 'plants add --file');
    plants.push(mine);
    ratios.push(mine / top);
  }
  const rows: Row[] = [
    {
      id: 'b1',
      what: `${ceilingName}, ${label} records`,
      median: format.rate(median(ceiling), 'rec/s'),
      spread: format.spread(ceiling, (value) => Math.round(value).toLocaleString('en-US')),
      ratio: '1.00',
      goal: '',
      result: '',
    },
  ];
  const cliName = `plants add --file, ${label} NDJSON records`;
  const rssName = `plants add --file, peak RSS, ${rssLabel} records`;
  if (unavailable !== undefined) {
    progress(`bulk mode not available (${unavailable})`);
    rows.push(na('b2', cliName, '≥ 0.7 of ceiling'), na('b3', rssName, '< 120 MB'));
    return rows;
  }
  const ratio = median(ratios);
  rows.push({
    id: 'b2',
    what: cliName,
    median: format.rate(median(plants), 'rec/s'),
    spread: format.spread(plants, (value) => Math.round(value).toLocaleString('en-US')),
    ratio: format.ratio(ratio),
    goal: '≥ 0.7 of ceiling',
    result: verdict(ratio >= 0.7),
  });
  progress(`peak RSS of plants add --file on ${rssLabel} records`);
  const rss = await peakRss();
  rows.push({
    id: 'b3',
    what: rssName,
    median: `${rss.mb.toFixed(0)} MB`,
    spread: '',
    ratio: rss.how,
    goal: '< 120 MB',
    result: verdict(rss.mb < 120),
  });
  return rows;
}

/** d: `plants list --all --json` of 100,000 plants from a memory store: time and peak RSS of the CLI. */
async function listingRows(): Promise<Row[]> {
  const count = quick ? 20_000 : 100_000;
  const label = count.toLocaleString('en-US');
  const file = path.join(work, 'list.ndjson');
  await writeNdjson(file, count, 1);
  const server = await startPlantsServe('memory', 'normal', pin ? 0 : undefined);
  const times: number[] = [];
  let peakMb = 0;
  try {
    const seeded = await run(node, [cli, 'add', '--file', file, '--base-url', server.url], {
      timeoutMs: 600_000,
      stdout: 'ignore',
    });
    if (seeded.code !== 0) throw new Error(`seeding the store failed:\n${seeded.stderr.slice(-2000)}`);
    const useTime = existsSync('/usr/bin/time');
    for (let round = 0; round < (quick ? 1 : 3); round++) {
      const args = [cli, 'list', '--all', '--json', '--limit', '1000', '--base-url', server.url];
      const result = await run(useTime ? '/usr/bin/time' : node, useTime ? ['-v', node, ...args] : args, {
        timeoutMs: 600_000,
        stdout: 'ignore',
        cpu: pin ? 1 : undefined,
      });
      if (result.code !== 0) throw new Error(`plants list failed:\n${result.stderr.slice(-2000)}`);
      times.push(result.ms);
      const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1];
      if (kb !== undefined) peakMb = Math.max(peakMb, Number(kb) / 1024);
    }
  } finally {
    await server.stop();
    rmSync(file, { force: true });
  }
  const ms = median(times);
  return [
    {
      id: 'd1',
      what: `plants list --all --json, ${label} plants (pages of 1,000)`,
      median: `${(ms / 1000).toFixed(2)} s`,
      spread: format.spread(times, (value) => `${(value / 1000).toFixed(2)}`),
      ratio: `${Math.round(count / (ms / 1000)).toLocaleString('en-US')} plants/s`,
      goal: '',
      result: '',
    },
    {
      id: 'd2',
      what: `plants list --all --json, peak RSS, ${label} plants`,
      median: peakMb > 0 ? `${peakMb.toFixed(0)} MB` : 'n/a (no /usr/bin/time)',
      spread: '',
      ratio: '/usr/bin/time -v',
      goal: '',
      result: '',
    },
  ];
}

/** Peak RSS of the CLI sending rssRecords records: /usr/bin/time -v, else VmHWM polled from /proc. */
async function peakRss(): Promise<{ mb: number; how: string }> {
  const file = path.join(work, 'rss.ndjson');
  await writeNdjson(file, plan.rssRecords, 1);
  // Memory store, durability normal: the fastest server there is, since only the client is measured.
  const server = await startPlantsServe('memory', 'normal', pin ? 0 : undefined);
  try {
    const args = [cli, 'add', '--file', file, '--base-url', server.url];
    if (existsSync('/usr/bin/time')) {
      const result = await run('/usr/bin/time', ['-v', node, ...args], {
        timeoutMs: 900_000,
        stdout: 'ignore',
        cpu: pin ? 1 : undefined,
      });
      const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1];
      if (result.code !== 0 || kb === undefined) throw new Error(`peak RSS run failed:\n${result.stderr.slice(-2000)}`);
      return { mb: Number(kb) / 1024, how: '/usr/bin/time -v' };
    }
    return await pollRss(args);
  } finally {
    await server.stop();
    rmSync(file, { force: true });
  }
}

async function pollRss(args: readonly string[]): Promise<{ mb: number; how: string }> {
  const child = spawn(node, args, { env: childEnv, cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(child);
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakKb = Math.max(peakKb, kb);
    } catch {
      // Gone already.
    }
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearInterval(poll);
  live.delete(child);
  if (code !== 0) throw new Error(`peak RSS run failed (exit ${code})`);
  return { mb: peakKb / 1024, how: 'VmHWM, polled every 50 ms' };
}

// ---------------------------------------------------------------------------------------------
// c. Server: requests/s of POST /plants against a bare node:http server
// ---------------------------------------------------------------------------------------------

interface LoadResult {
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  codes: Record<string, number>;
  /** CPU time the server process spent per request (user + system, all its threads), µs. */
  cpuPerRequestUs?: number;
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
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}

let idBase = 1;

/** Drives the server with autocannon from its own process: a warm-up, then the measured run. */
async function load(server: Server, seconds: number, auth = true): Promise<LoadResult> {
  const { url } = server;
  const drive = async (duration: number) => {
    const firstId = idBase;
    // Far more ids than any run can use: every request of this process tree has an id of its own.
    idBase += 10_000_000;
    const options = { url, token: auth ? token : undefined, duration, firstId, ...serverLoad };
    const result = await run(node, [path.join(bench, 'load-autocannon.mjs'), JSON.stringify(options)], {
      timeoutMs: (duration + 60) * 1000,
      cpu: pin ? 1 : undefined,
    });
    if (result.code !== 0) throw new Error(`autocannon failed (exit ${result.code}):\n${result.stderr.slice(-2000)}`);
    return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
  };
  await drive(plan.warmupSeconds);
  const before = cpuSeconds(server.child.pid);
  const result = await drive(seconds);
  const after = cpuSeconds(server.child.pid);
  if (before !== undefined && after !== undefined && result.requests > 0) {
    result.cpuPerRequestUs = ((after - before) / result.requests) * 1e6;
  }
  return result;
}

interface Target {
  id: string;
  what: string;
  start(): Promise<Server>;
  goal?: number;
}

async function serverRows(): Promise<Row[]> {
  const targets: Target[] = [
    {
      id: 'c1',
      what: 'bare node:http, parses and answers (ceiling)',
      start: () => startServer('ceiling', node, [path.join(bench, 'ceiling-server.mjs')], { cpu: pin ? 0 : undefined }),
    },
    {
      id: 'c2',
      what: 'plants serve --durability normal (file db)',
      start: () => startPlantsServe(path.join(freshDir('normal'), 'plants.db'), 'normal', pin ? 0 : undefined),
      goal: 0.9,
    },
    {
      id: 'c3',
      what: 'plants serve --durability full (file db)',
      start: () => startPlantsServe(path.join(freshDir('full'), 'plants.db'), 'full', pin ? 0 : undefined),
      goal: 0.7,
    },
  ];
  const rps = targets.map(() => [] as number[]);
  const ratios = targets.map(() => [] as number[]);
  const failures = targets.map(() => 0);
  const cpu = targets.map(() => [] as number[]);
  for (let round = 0; round < plan.serverRuns; round++) {
    for (const [index, target] of targets.entries()) {
      progress(`server round ${round + 1}/${plan.serverRuns}: ${target.what}`);
      const server = await target.start();
      try {
        const result = await load(server, plan.serverSeconds);
        rps[index]?.push(result.rps);
        if (result.cpuPerRequestUs !== undefined) cpu[index]?.push(result.cpuPerRequestUs);
        failures[index] = (failures[index] ?? 0) + result.non2xx + result.errors;
      } finally {
        await server.stop();
      }
    }
    for (const index of targets.keys()) ratios[index]?.push((rps[index]?.at(-1) ?? 0) / (rps[0]?.at(-1) ?? 1));
  }
  const rows: Row[] = targets.map((target, index) => {
    const ratio = index === 0 ? 1 : median(ratios[index] ?? []);
    const failed = failures[index] ?? 0;
    return {
      id: target.id,
      what: target.what,
      median: format.rate(median(rps[index] ?? []), 'req/s') + (failed > 0 ? ` (${failed} not 2xx!)` : ''),
      spread: format.spread(rps[index] ?? [], (value) => Math.round(value).toLocaleString('en-US')),
      ratio: format.ratio(ratio),
      goal: target.goal === undefined ? '' : `≥ ${target.goal} of ceiling`,
      result: target.goal === undefined ? '' : verdict(failed === 0 && ratio >= target.goal),
      cpu: cpu[index]?.length ? `${median(cpu[index] ?? []).toFixed(1)} µs` : '',
    };
  });
  if (!plan.peers) {
    rows.push(peerRow('c4', 'peer: prism mock', 'skipped (BENCH_QUICK)'));
    rows.push(peerRow('c5', 'peer: json-server 0.17', 'skipped (BENCH_QUICK)'));
    return rows;
  }
  const ceilingRps = median(rps[0] ?? []);
  rows.push(await peer('c4', 'peer: prism mock (the contract)', startPrism, ceilingRps));
  rows.push(await peer('c5', 'peer: json-server 0.17 (a JSON file)', startJsonServer, ceilingRps));
  return rows;
}

function peerRow(id: string, what: string, median: string): Row {
  return { id, what, median, spread: '', ratio: '', goal: '', result: '' };
}

async function peer(id: string, what: string, start: () => Promise<Server | string>, ceilingRps: number): Promise<Row> {
  progress(what);
  let server: Server | string;
  try {
    server = await start();
  } catch (error) {
    return peerRow(
      id,
      what,
      `n/a (${String((error as Error).message)
        .split('\n')[0]
        ?.slice(0, 60)})`,
    );
  }
  if (typeof server === 'string') return peerRow(id, what, server);
  try {
    const result = await load(server, plan.serverSeconds);
    const failed = result.non2xx + result.errors;
    return {
      id,
      what,
      median: format.rate(result.rps, 'req/s') + (failed > 0 ? ` (${failed} not 2xx)` : ''),
      spread: '1 run',
      ratio: format.ratio(result.rps / ceilingRps),
      goal: '',
      result: '',
      cpu: result.cpuPerRequestUs === undefined ? '' : `${result.cpuPerRequestUs.toFixed(1)} µs`,
    };
  } finally {
    await server.stop();
  }
}

async function startPrism(): Promise<Server | string> {
  const spec = path.join(root, 'spec', 'plant-store.openapi.yaml');
  if (!existsSync(spec)) return 'n/a (spec/plant-store.openapi.yaml not found)';
  let prism: string;
  try {
    prism = require.resolve('@stoplight/prism-cli/dist/index.js');
  } catch {
    return 'n/a (@stoplight/prism-cli not installed)';
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startServer(
    'prism',
    node,
    [prism, 'mock', '-h', '127.0.0.1', '-p', String(port), '--verboseLevel', 'silent', spec],
    { cpu: pin ? 0 : undefined, probeUrl: `${url}/healthz`, timeoutMs: 60_000 },
  );
}

async function startJsonServer(): Promise<Server | string> {
  let bin: string;
  try {
    bin = require.resolve('json-server/lib/cli/bin.js');
  } catch {
    return 'n/a (json-server not installed)';
  }
  const dir = freshDir('json-server');
  const db = path.join(dir, 'db.json');
  writeFileSync(db, '{"plants":[]}\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startServer('json-server', node, [bin, '-H', '127.0.0.1', '-p', String(port), '-q', db], {
    cpu: pin ? 0 : undefined,
    probeUrl: `${url}/plants`,
  });
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

function table(rows: readonly Row[]): string {
  const header: Row = {
    id: '',
    what: 'what',
    median: 'median',
    spread: 'min – max',
    ratio: 'ratio',
    goal: 'goal',
    result: 'goal met?',
    cpu: 'server CPU/req',
  };
  const columns: Array<keyof Row> = ['id', 'what', 'median', 'spread', 'ratio', 'goal', 'result', 'cpu'];
  const cell = (row: Row, column: keyof Row) => row[column] ?? '';
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => cell(row, column).length)));
  const line = (row: Row) =>
    `| ${columns.map((column, index) => cell(row, column).padEnd(widths[index] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  for (const needed of [
    cli,
    path.join(root, 'dist', 'commands', 'add.js'),
    path.join(root, 'dist', 'server', 'start.js'),
  ]) {
    if (!existsSync(needed)) {
      console.error(`${path.relative(root, needed)} is missing: run npm ci (it builds dist/) first.`);
      process.exitCode = 2;
      return;
    }
  }
  const started = Date.now();
  const load0 = os.loadavg()[0] ?? 0;
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  process.stderr.write(`plants bench${quick ? ' (BENCH_QUICK)' : ''}: working in ${work}\n`);
  const rows: Row[] = [];
  if (groups.has('a')) {
    progress('start-up');
    rows.push(...(await startupRows()));
  }
  if (groups.has('b')) {
    progress('bulk');
    rows.push(...(await bulkRows()));
  }
  if (groups.has('c')) {
    progress('server');
    rows.push(...(await serverRows()));
  }
  if (groups.has('d')) {
    progress('listing');
    rows.push(...(await listingRows()));
  }
  const seconds = (Date.now() - started) / 1000;

  const out = [
    `plants bench${quick ? ' (BENCH_QUICK=1: smoke run, not for the record)' : ''}, ${new Date().toISOString().slice(0, 16)}Z`,
    `machine: ${cpu}, ${cores} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; ${os.platform()} ${os.arch()}; Node ${process.version}; load average ${load0.toFixed(1)} at start, ${(os.loadavg()[0] ?? 0).toFixed(1)} at end`,
    `runs: start-up ${plan.startupRuns} per command after ${plan.startupWarmup} warm-up, round robin; bulk ${plan.bulkRuns} per side; server ${plan.serverRuns} × ${plan.serverSeconds} s per target after ${plan.warmupSeconds} s warm-up; ${seconds.toFixed(0)} s in all`,
    `set-up: every server and client its own process on 127.0.0.1; ${pin ? 'server pinned to cpu 0, load generator or client to cpu 1 (taskset)' : 'no pinning'}; server load: autocannon ${serverLoad.connections} connections × pipelining ${serverLoad.pipelining}, POST /plants, a new id each request; bulk: fresh durable (full) server and db file per side; plants add with its default concurrency`,
    'ratios: medians of per-round ratios (each round measures its rows back to back)',
    '',
    table(rows),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** However the machine behaves, the whole run ends: a few minutes normally, this at most. */
const DEADLINE_MS = (quick ? 5 : 20) * 60_000;
setTimeout(() => {
  console.error(`bench: still running after ${DEADLINE_MS / 60_000} minutes; stopping`);
  void stopAll().then(() => {
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  });
}, DEADLINE_MS).unref();

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    void stopAll().then(() => {
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

try {
  await main();
} catch (error) {
  if (!interrupted) {
    console.error(`bench failed: ${(error as Error).message}`);
    process.exitCode = 1;
  }
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
