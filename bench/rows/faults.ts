/**
 * l. A bulk add through faults (issue 49): `plants add --file` through the README's fault mix
 * (`plants serve --memory --fault reset=0.1 --fault stall=0.01 --fault truncate=0.05`, 1,000
 * records, `--timeout 3`) on 6 seeds, and 200 records through `--fault stall=0.05 --timeout 1`
 * on 3 seeds, this checkout's client against c5b5327's own (the last before one transport),
 * each seed's pair back to back against a fresh `plants serve` of this checkout. Every run must
 * end with exit 0, 1 or 3, a result line per record and its summary; its time at most 1.5x the
 * baseline's (median over the seeds against the baseline's median).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { baselineCommit, buildBaseline, removeBaseline } from '../lib/baseline.js';
import { cli, clientCpu, node, serverCpu, work } from '../lib/context.js';
import { writeNdjson } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** This checkout's time may be at most this many times the baseline's. */
const GOAL = 1.5;
/** The exit codes a bulk add may end with through faults (README: exit codes). */
const SETTLED_EXITS = new Set([0, 1, 3]);

interface Case {
  name: string;
  records: number;
  seeds: readonly number[];
  faults: readonly string[];
  timeoutSeconds: number;
}

const CASES: readonly Case[] = [
  {
    name: "the README's fault mix",
    records: 1000,
    seeds: [1, 2, 3, 4, 5, 6],
    faults: ['reset=0.1', 'stall=0.01', 'truncate=0.05'],
    timeoutSeconds: 3,
  },
  { name: 'stalls', records: 200, seeds: [1, 2, 3], faults: ['stall=0.05'], timeoutSeconds: 1 },
];

/** One run of one client: its time, whether it ended as a bulk add must, and how many records it left unknown. */
interface Outcome {
  ms: number;
  settled: boolean;
  unknown: number;
}

async function addThroughFaults(client: string, file: string, fault: Case, seed: number): Promise<Outcome> {
  const server = await startPlantsServe('memory', 'normal', serverCpu, [
    ...fault.faults.flatMap((kind) => ['--fault', kind]),
    ...['--fault-seed', String(seed)],
  ]);
  try {
    const result = await run(
      node,
      [client, 'add', '--file', file, '--base-url', server.url, '--timeout', String(fault.timeoutSeconds)],
      { timeoutMs: 600_000, cpu: clientCpu },
    );
    const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
    const summary = /^[✓✗] Added \d+ of \d+/m.test(result.stderr);
    return {
      ms: result.ms,
      settled: result.code !== null && SETTLED_EXITS.has(result.code) && lines.length === fault.records && summary,
      unknown: lines.filter((line) => line.includes('"outcome":"unknown"')).length,
    };
  } finally {
    await server.stop();
  }
}

async function caseRows(fault: Case, baselineCli: string, first: number): Promise<Row[]> {
  const file = path.join(work, `faults-${fault.records}.ndjson`);
  await writeNdjson(file, fault.records, 1);
  const now: Outcome[] = [];
  const then: Outcome[] = [];
  try {
    for (const seed of fault.seeds) {
      progress(`${fault.name}, seed ${seed}: this checkout, then ${baselineCommit}`);
      now.push(await addThroughFaults(cli, file, fault, seed));
      then.push(await addThroughFaults(baselineCli, file, fault, seed));
    }
  } finally {
    rmSync(file, { force: true });
  }
  // As issue 49 sets the goal: the median time over the seeds, against the baseline's on the same seeds.
  const ms = (outcomes: Outcome[]) => median(outcomes.map((outcome) => outcome.ms));
  const ratio = ms(now) / ms(then);
  const what = `${fault.records.toLocaleString('en-US')} records through ${fault.faults.map((kind) => `--fault ${kind}`).join(' ')} --timeout ${fault.timeoutSeconds}, ${fault.seeds.length} seeds`;
  const timeAndRate = (outcomes: Outcome[]) =>
    `${(ms(outcomes) / 1000).toFixed(1)} s, ${format.rate((fault.records * 1000) / ms(outcomes), 'records/s')}`;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const unknown = (outcomes: Outcome[]) => outcomes.map((outcome) => outcome.unknown).join(', ');
  const settled = now.every((outcome) => outcome.settled);
  return [
    {
      id: `l${first}`,
      what: `${what}: ${baselineCommit}'s own client (unknown left: ${unknown(then)})`,
      median: timeAndRate(then),
      spread: format.spread(
        then.map((outcome) => outcome.ms),
        seconds,
      ),
      ratio: '1.00',
      goal: '',
      result: '',
    },
    {
      id: `l${first + 1}`,
      what: `${what}: this checkout (unknown left: ${unknown(now)}; every run exit 0, 1 or 3, a line per record, a summary: ${settled ? 'yes' : 'no'})`,
      median: timeAndRate(now),
      spread: format.spread(
        now.map((outcome) => outcome.ms),
        seconds,
      ),
      ratio: format.times(ratio),
      goal: `≤ ${GOAL}x ${baselineCommit}, every run settled`,
      result: verdict(settled && ratio <= GOAL),
    },
  ];
}

async function faultRows(): Promise<Row[]> {
  const baseline = buildBaseline();
  try {
    if ('error' in baseline) {
      return [noteRow('l1', `bulk add through faults against ${baselineCommit}`, `skipped: ${baseline.error}`)];
    }
    const rows: Row[] = [];
    for (const fault of CASES) rows.push(...(await caseRows(fault, baseline.cli, rows.length + 1)));
    return rows;
  } finally {
    removeBaseline();
  }
}

export const faults: RowGroup = { key: 'l', title: 'bulk add through faults', rows: faultRows };
