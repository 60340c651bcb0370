/** b. Bulk: `plants add --file` against an undici Pool with pipelining, and the CLI's peak RSS. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bench, childEnv, cli, clientCpu, node, plan, serverCpu, token, work } from '../lib/context.js';
import { countRows, freshDir, writeNdjson } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, timeVPeakMb, verdict } from '../lib/format.js';
import { type Finished, live, run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** The ceiling of the bulk row: one undici Pool, connections × pipelining requests in flight. */
const bulkCeiling = { connections: 10, pipelining: 10 };

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
    const server = await startPlantsServe(db, 'full', serverCpu);
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
      cpu: clientCpu,
    });
  const viaCli = (url: string) =>
    run(node, [cli, 'add', '--file', file, '--base-url', url], {
      timeoutMs: 600_000,
      stdout: 'ignore',
      cpu: clientCpu,
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
    const na = 'n/a (bulk mode not available)';
    rows.push(noteRow('b2', cliName, na, '≥ 0.7 of ceiling'), noteRow('b3', rssName, na, '< 120 MB'));
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

/** Peak RSS of the CLI sending rssRecords records: /usr/bin/time -v, else VmHWM polled from /proc. */
async function peakRss(): Promise<{ mb: number; how: string }> {
  const file = path.join(work, 'rss.ndjson');
  await writeNdjson(file, plan.rssRecords, 1);
  // Memory store, durability normal: the fastest server there is, since only the client is measured.
  const server = await startPlantsServe('memory', 'normal', serverCpu);
  try {
    const args = [cli, 'add', '--file', file, '--base-url', server.url];
    if (existsSync('/usr/bin/time')) {
      const result = await run('/usr/bin/time', ['-v', node, ...args], {
        timeoutMs: 900_000,
        stdout: 'ignore',
        cpu: clientCpu,
      });
      const mb = timeVPeakMb(result.stderr);
      if (result.code !== 0 || mb === undefined) throw new Error(`peak RSS run failed:\n${result.stderr.slice(-2000)}`);
      return { mb, how: '/usr/bin/time -v' };
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

export const bulk: RowGroup = { key: 'b', title: 'bulk', rows: bulkRows };
