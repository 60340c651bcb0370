/**
 * f. An import run again (issue 15): `plants add --file` of N records into a fresh durable
 * store, then the same file again with `--skip-existing`, where every record is already there
 * (each a 409 carrying the stored plant, compared without a GET). The re-run must take at most 1.5x the first run.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { cli, clientCpu, node, plan, serverCpu, work } from '../lib/context.js';
import { countRows, freshDir, writeNdjson } from '../lib/files.js';
import { format, median, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { type Finished, run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** The re-run may take at most this many times the first run. */
const GOAL = 1.5;

async function rerunRows(): Promise<Row[]> {
  const label = plan.rerunRecords.toLocaleString('en-US');
  const file = path.join(work, 'rerun.ndjson');
  await writeNdjson(file, plan.rerunRecords, 1);
  const firsts: number[] = [];
  const reruns: number[] = [];
  const ratios: number[] = [];
  const add = (url: string, extra: readonly string[], name: string): Promise<Finished> =>
    run(node, [cli, 'add', '--file', file, '--base-url', url, ...extra], {
      timeoutMs: 1_800_000,
      stdout: 'ignore',
      cpu: clientCpu,
    }).then((result) => {
      if (result.code !== 0)
        throw new Error(`${name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`);
      return result;
    });
  try {
    for (let round = 0; round < plan.rerunRuns; round++) {
      // One durable server over one fresh file for both runs of a round: the second finds every record.
      const dir = freshDir('rerun');
      const db = path.join(dir, 'plants.db');
      const server = await startPlantsServe(db, 'full', serverCpu);
      try {
        progress(`re-run round ${round + 1}/${plan.rerunRuns}: first run, ${label} records`);
        const first = await add(server.url, [], 'plants add --file (first run)');
        progress(`re-run round ${round + 1}/${plan.rerunRuns}: again with --skip-existing`);
        const again = await add(server.url, ['--skip-existing'], 'plants add --file --skip-existing (re-run)');
        firsts.push(first.ms);
        reruns.push(again.ms);
        ratios.push(again.ms / first.ms);
      } finally {
        await server.stop();
      }
      const stored = countRows(db);
      rmSync(dir, { recursive: true, force: true });
      if (stored !== plan.rerunRecords) throw new Error(`re-run: ${stored} plants stored of ${plan.rerunRecords}`);
    }
  } finally {
    rmSync(file, { force: true });
  }
  const ratio = median(ratios);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    {
      id: 'f1',
      what: `plants add --file, ${label} records, first run (durable store)`,
      median: seconds(median(firsts)),
      spread: format.spread(firsts, seconds),
      ratio: '1.00',
      goal: '',
      result: '',
    },
    {
      id: 'f2',
      what: `the same again with --skip-existing: every record exists (409 with the stored plant)`,
      median: seconds(median(reruns)),
      spread: format.spread(reruns, seconds),
      ratio: format.times(ratio),
      goal: `≤ ${GOAL}x the first run`,
      result: verdict(ratio <= GOAL),
    },
  ];
}

export const rerun: RowGroup = { key: 'f', title: 're-run of an import', rows: rerunRows };
