/**
 * `npm run bench`: how fast `plants` is against the limits of this machine, measured in one run.
 *
 * Every server, client and load generator is a process of this tree, on 127.0.0.1 only. Absolute
 * figures swing with whatever else the machine does; the ratios, taken between rows measured back
 * to back in the same round, are what to read. It builds nothing: it runs bin/run.js over dist/
 * as `npm ci` left them.
 *
 * This file only runs the groups of rows and prints the table. Each group is one module of
 * bench/rows/ (add a group there and list it in `groups`); what rows share is in bench/lib/.
 *
 * BENCH_QUICK=1: a smoke run of a few minutes with valgrind, about 30 s without (fewer runs, smaller files, shorter loads, no peers, three callgrind counts).
 * BENCH_CALLGRIND_RUNS=N: callgrind medians of N counts (3; 1 with BENCH_QUICK).
 * BENCH_PIN=0: do not pin the server under test and its load generator to separate cores.
 * BENCH_DEADLINE_MINUTES=N: stop after N minutes (40; 10 with BENCH_QUICK).
 * BENCH_ROWS=a,c: only these groups of rows (a start-up, b bulk, c server, d listing, e postgres, f re-run, g Node versions, h postgres failover, i the page of serve, j the single executable, which npm run build:binary makes, k the SQLite drivers on Node 24 and 26, l a bulk add through faults against c5b5327's client, m plants/testing's start, n instructions per bulk record, client and server, against the baseline); default all.
 */
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, cores, pin, plan, quick, root, work } from './lib/context.js';
import { progress, type Row, type RowGroup, table } from './lib/format.js';
import { serverLoad } from './lib/load.js';
import { stopAll } from './lib/processes.js';
import { binary } from './rows/binary.js';
import { bulk } from './rows/bulk.js';
import { bulkInstructions } from './rows/bulk-instructions.js';
import { failover } from './rows/failover.js';
import { faults } from './rows/faults.js';
import { listing } from './rows/listing.js';
import { page } from './rows/page.js';
import { postgres } from './rows/postgres.js';
import { rerun } from './rows/rerun.js';
import { server } from './rows/server.js';
import { sqliteDrivers } from './rows/sqlite-drivers.js';
import { startup } from './rows/startup.js';
import { testing } from './rows/testing.js';
import { nodeVersions } from './rows/versions.js';

/** The groups of rows, in the order they run and print. */
const groups: readonly RowGroup[] = [
  startup,
  bulk,
  server,
  listing,
  postgres,
  rerun,
  nodeVersions,
  failover,
  page,
  binary,
  sqliteDrivers,
  faults,
  testing,
  bulkInstructions,
];
const chosen = new Set(
  (process.env.BENCH_ROWS ?? groups.map((group) => group.key).join(',')).split(',').map((key) => key.trim()),
);

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
  for (const group of groups) {
    if (!chosen.has(group.key)) continue;
    progress(group.title);
    rows.push(...(await group.rows()));
  }
  const seconds = (Date.now() - started) / 1000;

  const out = [
    `plants bench${quick ? ' (BENCH_QUICK=1: smoke run, not for the record)' : ''}, ${new Date().toISOString().slice(0, 16)}Z`,
    `machine: ${cpu}, ${cores} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; ${os.platform()} ${os.arch()}; Node ${process.version}; load average ${load0.toFixed(1)} at start, ${(os.loadavg()[0] ?? 0).toFixed(1)} at end`,
    `runs: start-up ${plan.startupRuns} per command after ${plan.startupWarmup} warm-up, round robin, callgrind medians of ${plan.callgrindRuns}; bulk ${plan.bulkRuns} per side; server ${plan.serverRuns} × ${plan.serverSeconds} s per target after ${plan.warmupSeconds} s warm-up; ${seconds.toFixed(0)} s in all`,
    `set-up: every server and client its own process on 127.0.0.1; ${pin ? 'server pinned to cpu 0, load generator or client to cpu 1 (taskset)' : 'no pinning'}; server load: autocannon ${serverLoad.connections} connections × pipelining ${serverLoad.pipelining}, POST /plants, a new id each request; bulk: a fresh server (and db file) per side, wrk -t1 with the CLI's default concurrency as connections; plants add with its default concurrency`,
    'ratios: medians of per-round ratios (each round measures its rows back to back)',
    '',
    table(rows),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * However the machine behaves, the whole run ends: a few minutes normally, this at most
 * (BENCH_DEADLINE_MINUTES: start-up's callgrind counts take much longer on a loaded machine).
 */
const deadlineMinutes = Number.parseInt(process.env.BENCH_DEADLINE_MINUTES ?? '', 10);
const DEADLINE_MS = (deadlineMinutes > 0 ? deadlineMinutes : quick ? 10 : 40) * 60_000;
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
