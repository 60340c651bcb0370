/**
 * n. What one record of a bulk add costs, in instructions (callgrind), this checkout against the
 * baseline built in the same run: the client (`plants add --file`), the bare undici Pool of group
 * b on each tree's own undici, and the server (`plants serve`, in memory and over a file). Group
 * b's rates swing with whatever else a 2-core machine does; these counts do not, so they tell
 * whether a change made a record dearer. A record's cost is the difference of two counts (LARGE
 * and SMALL records) over the records between them, so that start-up and shutdown cancel out.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { baselineCommit, buildBaseline, removeBaseline } from '../lib/baseline.js';
import { countInstructions, hasValgrind } from '../lib/callgrind.js';
import { bench, cli, node, token, work } from '../lib/context.js';
import { freshDir, writeNdjson } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe, startServer } from '../lib/servers.js';
import { barePool } from './bulk.js';

const SMALL = 2_000;
const LARGE = 12_000;
/**
 * One count of each size: a pair takes about 45 s of valgrind on 2 cores, and the client's
 * per-record figure moves by up to 5% between quiet runs (how answers bunch into reads, when V8
 * compiles and collects).
 */
const RUNS = 1;
/** A record may cost at most this many times the baseline's, client and server alike. */
const GOAL = 1.05;

type Files = { small: string; large: string };
type Count = (file: string) => Promise<number>;

/** Instructions per record: the median over RUNS of (count(LARGE) − count(SMALL)) / (LARGE − SMALL). */
async function perRecord(files: Files, count: Count): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < RUNS; i++)
    values.push(((await count(files.large)) - (await count(files.small))) / (LARGE - SMALL));
  return median(values);
}

/** A count of the client `cli` adding the file into a fresh `serve --memory` of this checkout. */
function clientCount(client: string): Count {
  return async (file) => {
    const server = await startPlantsServe('memory', 'normal');
    try {
      const args = [client, 'add', '--file', file, '--base-url', server.url];
      return (await countInstructions(args, undefined, {}, node, true)) ?? Number.NaN;
    } finally {
      await server.stop();
    }
  };
}

/** load-pool.mjs's argument: group b's bare Pool posting the file to the server at `url`. */
function poolArgument(url: string, file: string): string {
  return JSON.stringify({ url, token, file, ...barePool });
}

/** A count of the bare Pool script (load-pool.mjs, next to the undici it should load) posting the file. */
function poolCount(script: string): Count {
  return async (file) => {
    const server = await startPlantsServe('memory', 'normal');
    try {
      return (await countInstructions([script, poolArgument(server.url, file)])) ?? Number.NaN;
    } finally {
      await server.stop();
    }
  };
}

/** A count of `serve` of `serverCli` (in memory, or over a fresh file) under callgrind while this checkout's Pool posts the file. */
function serverCount(serverCli: string, store: 'memory' | 'file'): Count {
  return async (file) => {
    const dir = freshDir('bulk-instructions');
    const db = store === 'memory' ? ['--memory'] : ['--db', path.join(dir, 'plants.db')];
    const args = ['--tool=callgrind', '--trace-children=no', '--callgrind-out-file=/dev/null', node, serverCli];
    args.push('serve', '--host', '127.0.0.1', '--port', '0', '--quiet', '--token', token, '--durability', 'normal');
    const server = await startServer(`callgrind of ${serverCli} serve`, 'valgrind', [...args, ...db], {
      timeoutMs: 120_000,
    });
    try {
      const posted = await run(node, [path.join(bench, 'load-pool.mjs'), poolArgument(server.url, file)], {
        timeoutMs: 600_000,
      });
      if (posted.code !== 0) throw new Error(`the Pool client failed against ${server.name}:\n${posted.stderr}`);
      await server.stop();
      const collected = /Collected : (\d+)/.exec(server.stderr())?.[1];
      if (collected === undefined) throw new Error(`${server.name} printed no count:\n${server.stderr().slice(-2000)}`);
      return Number(collected);
    } finally {
      await server.stop();
    }
  };
}

async function instructionRows(): Promise<Row[]> {
  if (!hasValgrind) return [noteRow('n1', 'instructions per bulk record', 'n/a (valgrind is not installed)')];
  const baseline = buildBaseline();
  if ('error' in baseline) return [noteRow('n1', 'instructions per bulk record', `skipped: ${baseline.error}`)];
  try {
    const files = { small: path.join(work, 'n-small.ndjson'), large: path.join(work, 'n-large.ndjson') };
    await writeNdjson(files.small, SMALL, 1);
    await writeNdjson(files.large, LARGE, 1);
    // The same script beside the baseline's node_modules loads the baseline's undici.
    const baselinePool = path.join(path.dirname(baseline.cli), '..', 'bench', 'load-pool-of-this-checkout.mjs');
    copyFileSync(path.join(bench, 'load-pool.mjs'), baselinePool);
    const pairs = [
      { what: 'plants add --file: client', now: clientCount(cli), baseline: clientCount(baseline.cli), goal: true },
      {
        // Context, not a goal: how the transport's own cost moved with the undici of each tree.
        what: "bare undici Pool (group b's), each tree's undici: client",
        goal: false,
        now: poolCount(path.join(bench, 'load-pool.mjs')),
        baseline: poolCount(baselinePool),
      },
      {
        what: 'serve --memory: server',
        now: serverCount(cli, 'memory'),
        baseline: serverCount(baseline.cli, 'memory'),
        goal: true,
      },
      {
        what: 'serve --durability normal (file db): server',
        now: serverCount(cli, 'file'),
        baseline: serverCount(baseline.cli, 'file'),
        goal: true,
      },
    ];
    const rows: Row[] = [];
    const counted: Array<{ now: number; then: number }> = [];
    for (const pair of pairs) {
      progress(`instructions per record, ${pair.what}: this checkout, then ${baselineCommit}`);
      const now = await perRecord(files, pair.now);
      const then = await perRecord(files, pair.baseline);
      counted.push({ now, then });
      const ratio = now / then;
      rows.push({
        id: `n${rows.length + 1}`,
        what: `${pair.what} instructions per record (callgrind, ${LARGE.toLocaleString('en-US')} less ${SMALL.toLocaleString('en-US')} records; ${baselineCommit}: ${Math.round(then).toLocaleString('en-US')})`,
        median: Math.round(now).toLocaleString('en-US'),
        spread: '',
        ratio: format.times(ratio),
        goal: pair.goal ? `≤ ${GOAL}x ${baselineCommit}` : '',
        result: pair.goal ? verdict(ratio <= GOAL) : '',
      });
    }
    rows.push(ownShare(counted[0], counted[1]));
    return rows;
  } finally {
    removeBaseline();
  }
}

export const bulkInstructions: RowGroup = {
  key: 'n',
  title: 'instructions per bulk record',
  rows: instructionRows,
};

/**
 * What plants' client adds per record to the undici it runs on: n1 less n2, for each tree. n1's ratio
 * moves with undici's own cost (a new major) as much as with ours; this row holds ours alone.
 */
function ownShare(client?: { now: number; then: number }, pool?: { now: number; then: number }): Row {
  const what = "plants add --file: the client's own instructions per record, beyond its undici's bare Pool (n1 less n2";
  if (client === undefined || pool === undefined) return noteRow('n5', what, 'n/a');
  const now = client.now - pool.now;
  const then = client.then - pool.then;
  const shown = (value: number) => Math.round(value).toLocaleString('en-US');
  return {
    id: 'n5',
    what: `${what}; ${baselineCommit}: ${shown(then)})`,
    median: shown(now),
    spread: '',
    ratio: '',
    goal: `≤ ${baselineCommit}'s`,
    result: verdict(now <= then),
  };
}
