/** c. Server: requests/s of POST /plants, plants serve against a bare node:http server, then the peers. */
import path from 'node:path';
import { bench, node, plan, serverCpu } from '../lib/context.js';
import { freshDir } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { load } from '../lib/load.js';
import { type Server, startPlantsServe, startServer } from '../lib/servers.js';
import { peerRows } from './peers.js';

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
      start: () => startServer('ceiling', node, [path.join(bench, 'ceiling-server.mjs')], { cpu: serverCpu }),
    },
    {
      id: 'c2',
      what: 'plants serve --durability normal (file db)',
      start: () => startPlantsServe(path.join(freshDir('normal'), 'plants.db'), 'normal', serverCpu),
      goal: 0.9,
    },
    {
      id: 'c3',
      what: 'plants serve --durability full (file db)',
      start: () => startPlantsServe(path.join(freshDir('full'), 'plants.db'), 'full', serverCpu),
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
    rows.push(noteRow('c4', 'peer: prism mock', 'skipped (BENCH_QUICK)'));
    rows.push(noteRow('c5', 'peer: json-server 0.17', 'skipped (BENCH_QUICK)'));
    return rows;
  }
  rows.push(...(await peerRows(median(rps[0] ?? []))));
  return rows;
}

export const server: RowGroup = { key: 'c', title: 'server', rows: serverRows };
