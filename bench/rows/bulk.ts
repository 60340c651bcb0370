/**
 * b. Bulk (issue 12): `plants add --file` against a wrk ceiling on the same kind of server, in
 * the same round, for `serve --durability normal` (a file) and `serve --memory`; the CLI's CPU
 * per record against a plain undici Pool client posting the same file; and its peak RSS on a
 * long input.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONCURRENCY } from '../../src/cli/defaults.js';
import { PIPELINING } from '../../src/client/undici-agent.js';
import { bench, childEnv, cli, clientCpu, node, plan, serverCpu, token, work } from '../lib/context.js';
import { countRows, freshDir, writeNdjson } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { wrkPostPlants } from '../lib/load.js';
import { hasTime, live, run, type Timed, timed } from '../lib/processes.js';
import { type Server, startPlantsServe } from '../lib/servers.js';
import { hasCommand } from '../lib/system.js';

/** plants add --file against the wrk ceiling: at least this share of it. */
const RATE_GOAL = 0.92;
/** The CLI's CPU per record: at most this many times a bare undici Pool's, pipelined the same way. */
const CPU_GOAL = 1.1;
const RSS_GOAL_MB = 64;

/** wrk keeps as many requests in flight as the CLI does by default: one per connection. */
const wrkConnections = DEFAULT_CONCURRENCY;
/**
 * The bare client: an undici Pool with the CLI's requests in flight laid out as the CLI's agent
 * lays them (PIPELINING on each connection), sending the same file and doing nothing else.
 */
export const barePool = { connections: DEFAULT_CONCURRENCY / PIPELINING, pipelining: PIPELINING };

const stores = [
  { key: 'normal', label: 'serve --durability normal (file db)' },
  { key: 'memory', label: 'serve --memory' },
] as const;
type StoreKey = (typeof stores)[number]['key'];

/** wrk on PATH, installed from Debian's packages (the bench's own set-up step) where missing; else why not. */
function ensureWrk(): string | undefined {
  if (hasCommand('wrk')) return undefined;
  if (!hasCommand('apt-get')) return 'wrk is not installed, and there is no apt-get to install it';
  progress('installing wrk (apt-get install wrk)');
  const asRoot = process.getuid?.() === 0 ? [] : hasCommand('sudo') ? ['sudo', '-n'] : undefined;
  if (asRoot === undefined) return 'wrk is not installed (apt-get install wrk needs root)';
  try {
    const [command = 'apt-get', ...rest] = [...asRoot, 'apt-get'];
    execFileSync(command, [...rest, 'install', '-y', '-q', 'wrk'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
  } catch (error) {
    return `wrk is not installed (apt-get install wrk failed: ${(error as Error).message.split('\n')[0]})`;
  }
  return hasCommand('wrk') ? undefined : 'wrk is not installed (apt-get install wrk did not provide it)';
}

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

/**
 * A fresh server of the kind asked for (over a fresh file for `normal`), and how many plants
 * the file holds once the server stopped (every acknowledged add is in it by then).
 */
async function withServer<T>(
  store: StoreKey,
  use: (server: Server) => Promise<T>,
): Promise<{ value: T; stored?: number }> {
  const dir = store === 'memory' ? undefined : freshDir('bulk');
  const db = dir === undefined ? 'memory' : path.join(dir, 'plants.db');
  const server = await startPlantsServe(db, 'normal', serverCpu);
  let value: T;
  try {
    value = await use(server);
  } finally {
    await server.stop();
  }
  if (dir === undefined) return { value };
  const stored = countRows(db);
  rmSync(dir, { recursive: true, force: true });
  return { value, stored };
}

/** wrk for plan.wrkSeconds against the server: requests per second, all of them answered 200. */
async function viaWrk(server: Server): Promise<number> {
  return (await wrkPostPlants(server, { connections: wrkConnections, seconds: plan.wrkSeconds, firstId: 1 })).rps;
}

async function bulkRows(): Promise<Row[]> {
  const label = plan.bulkRecords.toLocaleString('en-US');
  const rssLabel = plan.rssRecords.toLocaleString('en-US');
  const noWrk = ensureWrk();
  const unavailable = await bulkSupport();
  const file = path.join(work, 'bulk.ndjson');
  await writeNdjson(file, plan.bulkRecords, 1);
  const ceilings: Record<StoreKey, number[]> = { normal: [], memory: [] };
  const rates: Record<StoreKey, number[]> = { normal: [], memory: [] };
  const rateRatios: Record<StoreKey, number[]> = { normal: [], memory: [] };
  const cliCpu: number[] = [];
  const poolCpu: number[] = [];
  const cpuRatios: number[] = [];
  /** The bare Pool's own rate against the wrk ceiling: what an undici client reaches on this machine. */
  const poolRates: number[] = [];
  const poolRateRatios: number[] = [];

  const viaCli = async (server: Server): Promise<Timed> => {
    const result = await timed(node, [cli, 'add', '--file', file, '--base-url', server.url], {
      timeoutMs: 600_000,
      stdout: 'ignore',
      cpu: clientCpu,
    });
    if (result.code !== 0)
      throw new Error(
        `plants add --file failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
      );
    return result;
  };
  const viaPool = async (server: Server): Promise<Timed> => {
    const options = JSON.stringify({ url: server.url, token, file, ...barePool });
    const result = await timed(node, [path.join(bench, 'load-pool.mjs'), options], {
      timeoutMs: 600_000,
      cpu: clientCpu,
    });
    if (result.code !== 0)
      throw new Error(
        `undici Pool client failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
      );
    return result;
  };
  const checkStored = (name: string, stored: number | undefined) => {
    if (stored !== undefined && stored !== plan.bulkRecords)
      throw new Error(`${name}: ${stored} plants stored of ${plan.bulkRecords}`);
  };
  const perRecordUs = (result: Timed) =>
    result.cpuSeconds === undefined ? Number.NaN : (result.cpuSeconds / plan.bulkRecords) * 1e6;

  for (let round = 0; round < plan.bulkRuns; round++) {
    const step = (what: string) => progress(`bulk round ${round + 1}/${plan.bulkRuns}: ${what}`);
    if (unavailable !== undefined) break;
    for (const store of stores) {
      let ceiling = Number.NaN;
      if (noWrk === undefined) {
        step(`wrk ${wrkConnections} connections against ${store.label}`);
        ceiling = (await withServer(store.key, viaWrk)).value;
        ceilings[store.key].push(ceiling);
      }
      step(`plants add --file into ${store.label}`);
      const mine = await withServer(store.key, viaCli);
      checkStored('plants add --file', mine.stored);
      const rate = plan.bulkRecords / (mine.value.ms / 1000);
      rates[store.key].push(rate);
      rateRatios[store.key].push(rate / ceiling);
      if (store.key === 'memory') {
        step(`bare undici Pool (${barePool.pipelining} × ${barePool.connections} connections) into ${store.label}`);
        const pool = await withServer(store.key, viaPool);
        const poolRate = plan.bulkRecords / (pool.value.ms / 1000);
        poolRates.push(poolRate);
        poolRateRatios.push(poolRate / ceiling);
        const mineUs = perRecordUs(mine.value);
        const poolUs = perRecordUs(pool.value);
        cliCpu.push(mineUs);
        poolCpu.push(poolUs);
        cpuRatios.push(mineUs / poolUs);
      }
    }
  }
  rmSync(file, { force: true });

  const rows: Row[] = [];
  const rateSpread = (values: number[]) => format.spread(values, (value) => Math.round(value).toLocaleString('en-US'));
  const usSpread = (values: number[]) => format.spread(values, (value) => value.toFixed(1));
  const ids = { normal: ['b1', 'b2'], memory: ['b3', 'b4'] } as const;
  for (const store of stores) {
    const [ceilingId, cliId] = ids[store.key];
    const ceilingName = `wrk -t1 -c${wrkConnections}, Lua: POST a new id each request → ${store.label} (ceiling)`;
    const cliName = `plants add --file, ${label} NDJSON records → ${store.label}`;
    const goal = `≥ ${RATE_GOAL} of ${ceilingId}`;
    if (noWrk !== undefined) rows.push(noteRow(ceilingId, ceilingName, `n/a (${noWrk})`));
    else
      rows.push({
        id: ceilingId,
        what: ceilingName,
        median: format.rate(median(ceilings[store.key]), 'req/s'),
        spread: rateSpread(ceilings[store.key]),
        ratio: '1.00',
        goal: '',
        result: '',
      });
    if (unavailable !== undefined) {
      rows.push(noteRow(cliId, cliName, `n/a (bulk mode not available: ${unavailable})`, goal));
      continue;
    }
    const ratio = median(rateRatios[store.key]);
    rows.push({
      id: cliId,
      what: cliName,
      median: format.rate(median(rates[store.key]), 'rec/s'),
      spread: rateSpread(rates[store.key]),
      ratio: noWrk === undefined ? format.ratio(ratio) : 'n/a',
      goal,
      result: noWrk === undefined ? verdict(ratio >= RATE_GOAL) : '',
    });
  }
  const poolName = `bare undici Pool (pipelining ${barePool.pipelining} × ${barePool.connections} connections), same file → serve --memory: client CPU per record`;
  const cpuName = `plants add --file (b4): client CPU per record`;
  const cpuGoal = `≤ ${CPU_GOAL}x b5`;
  if (unavailable !== undefined) {
    rows.push(noteRow('b5', poolName, 'n/a'), noteRow('b6', cpuName, 'n/a', cpuGoal));
  } else if (!hasTime) {
    const na = 'n/a (no /usr/bin/time to read CPU time)';
    rows.push(noteRow('b5', poolName, na), noteRow('b6', cpuName, na, cpuGoal));
  } else {
    const ratio = median(cpuRatios);
    rows.push(
      {
        id: 'b5',
        what: poolName,
        median: `${median(poolCpu).toFixed(1)} µs`,
        spread: usSpread(poolCpu),
        ratio: '1.00',
        goal: '',
        result: '',
      },
      {
        id: 'b6',
        what: cpuName,
        median: `${median(cliCpu).toFixed(1)} µs`,
        spread: usSpread(cliCpu),
        ratio: format.times(ratio),
        goal: cpuGoal,
        result: verdict(ratio <= CPU_GOAL),
      },
    );
  }
  const rssName = `plants add --file, peak RSS, ${rssLabel} records`;
  const rssGoal = `< ${RSS_GOAL_MB} MB`;
  if (unavailable !== undefined) {
    rows.push(noteRow('b7', rssName, 'n/a (bulk mode not available)', rssGoal));
    return rows;
  }
  progress(`peak RSS of plants add --file on ${rssLabel} records`);
  const rss = await peakRss();
  rows.push({
    id: 'b7',
    what: rssName,
    median: `${rss.mb.toFixed(0)} MB`,
    spread: '',
    ratio: rss.how,
    goal: rssGoal,
    result: verdict(rss.mb < RSS_GOAL_MB),
  });
  if (poolRates.length > 0) {
    // Context for b4, not a goal: the rate of a client that only sends (no validation, ordering
    // or output) on the same undici, against the same ceiling.
    rows.push({
      id: 'b8',
      what: `bare undici Pool (b5): ${label} records → serve --memory, its rate against b3`,
      median: format.rate(median(poolRates), 'rec/s'),
      spread: rateSpread(poolRates),
      ratio: noWrk === undefined ? format.ratio(median(poolRateRatios)) : 'n/a',
      goal: '',
      result: '',
    });
  }
  return rows;
}

/** Peak RSS of the CLI sending rssRecords records: /usr/bin/time, else VmHWM polled from /proc. */
async function peakRss(): Promise<{ mb: number; how: string }> {
  const file = path.join(work, 'rss.ndjson');
  await writeNdjson(file, plan.rssRecords, 1);
  try {
    // Memory store: the fastest server there is, since only the client is measured.
    const { value } = await withServer('memory', async (server) => {
      const args = [cli, 'add', '--file', file, '--base-url', server.url];
      if (hasTime) {
        const result = await timed(node, args, { timeoutMs: 900_000, stdout: 'ignore', cpu: clientCpu });
        if (result.code !== 0 || result.peakMb === undefined)
          throw new Error(`peak RSS run failed:\n${result.stderr.slice(-2000)}`);
        return { mb: result.peakMb, how: '/usr/bin/time' };
      }
      return await pollRss(args);
    });
    return value;
  } finally {
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

export const bulk: RowGroup = { key: 'b', title: 'bulk', rows: bulkRows };
