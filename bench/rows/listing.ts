/** d. `plants list --all --json` of many plants from a memory store: time and peak RSS of the CLI. */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { cli, clientCpu, node, plan, serverCpu, work } from '../lib/context.js';
import { writeNdjson } from '../lib/files.js';
import { format, median, type Row, type RowGroup } from '../lib/format.js';
import { run, timed } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

async function listingRows(): Promise<Row[]> {
  const count = plan.listRecords;
  const label = count.toLocaleString('en-US');
  const file = path.join(work, 'list.ndjson');
  await writeNdjson(file, count, 1);
  const server = await startPlantsServe('memory', 'normal', serverCpu);
  const times: number[] = [];
  let peakMb = 0;
  try {
    const seeded = await run(node, [cli, 'add', '--file', file, '--base-url', server.url], {
      timeoutMs: 600_000,
      stdout: 'ignore',
    });
    if (seeded.code !== 0) throw new Error(`seeding the store failed:\n${seeded.stderr.slice(-2000)}`);
    for (let round = 0; round < plan.listRuns; round++) {
      const args = [cli, 'list', '--all', '--json', '--limit', '1000', '--base-url', server.url];
      const result = await timed(node, args, { timeoutMs: 600_000, stdout: 'ignore', cpu: clientCpu });
      if (result.code !== 0) throw new Error(`plants list failed:\n${result.stderr.slice(-2000)}`);
      times.push(result.ms);
      if (result.peakMb !== undefined) peakMb = Math.max(peakMb, result.peakMb);
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
      ratio: '/usr/bin/time',
      goal: '',
      result: '',
    },
  ];
}

export const listing: RowGroup = { key: 'd', title: 'listing', rows: listingRows };
