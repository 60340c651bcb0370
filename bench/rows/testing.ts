/**
 * l. plants/testing (issue 53): startStore's start until it listens, in one process, against a
 * bare node:http server started and closed in the same rounds (the floor), each the first thing
 * measured after the other. The goal is absolute (a median of at most 150 ms); the ratio
 * to the floor is what to compare between runs.
 */
import path from 'node:path';
import { node, plan, root } from '../lib/context.js';
import { format, median, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';

const GOAL_MS = 150;

async function testingRows(): Promise<Row[]> {
  const script = path.join(root, 'bench', 'start-store.mjs');
  const entry = path.join(root, 'dist', 'testing', 'index.js');
  const result = await run(node, [script, entry, String(plan.startupRuns), String(plan.startupWarmup)], {
    timeoutMs: 120_000,
  });
  if (result.code !== 0) throw new Error(`startStore's rounds failed:\n${result.stderr.slice(-2000)}`);
  const times = JSON.parse(result.stdout) as { first: number; floor: number[]; store: number[] };
  const floor = median(times.floor);
  const store = median(times.store);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    {
      id: 'm1',
      what: 'node:http listen on a free loopback port (floor)',
      median: ms(floor),
      spread: format.spread(times.floor, ms),
      ratio: '1.00',
      goal: '',
      result: '',
    },
    {
      id: 'm2',
      what: 'startStore() until it listens, in memory',
      median: ms(store),
      spread: format.spread(times.store, ms),
      // As the table says: the median of each round's ratio.
      ratio: format.ratio(median(times.store.map((value, round) => value / (times.floor[round] ?? Number.NaN)))),
      goal: `≤ ${GOAL_MS} ms`,
      result: verdict(store <= GOAL_MS),
    },
    {
      id: 'm3',
      what: "the process's first startStore(), its modules loaded on the way",
      median: ms(times.first),
      spread: '',
      ratio: '',
      goal: '',
      result: '',
    },
  ];
}

export const testing: RowGroup = { key: 'm', title: 'plants/testing', rows: testingRows };
