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
  /** The row its ratio (and goal) is taken against, measured in the same round; default the ceiling, c1. */
  against?: number;
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
    // What the request log and the metrics cost, each against c2 (the same server, --quiet).
    {
      id: 'c6',
      what: 'c2 with the text request log (stderr to a pipe)',
      start: () =>
        startPlantsServe(path.join(freshDir('text'), 'plants.db'), 'normal', serverCpu, ['--log-format', 'text']),
      against: 1,
    },
    {
      id: 'c7',
      what: 'c2 with --log-format json (pino)',
      start: () =>
        startPlantsServe(path.join(freshDir('json'), 'plants.db'), 'normal', serverCpu, ['--log-format', 'json']),
      against: 1,
    },
    {
      id: 'c8',
      what: 'c2 with --metrics (prom-client)',
      start: () => startPlantsServe(path.join(freshDir('metrics'), 'plants.db'), 'normal', serverCpu, ['--metrics']),
      goal: 0.95,
      against: 1,
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
    for (const [index, target] of targets.entries()) {
      ratios[index]?.push((rps[index]?.at(-1) ?? 0) / (rps[target.against ?? 0]?.at(-1) ?? 1));
    }
  }
  const rows: Row[] = targets.map((target, index) => {
    const ratio = index === 0 ? 1 : median(ratios[index] ?? []);
    const failed = failures[index] ?? 0;
    const against = target.against === undefined ? 'ceiling' : (targets[target.against]?.id ?? '');
    return {
      id: target.id,
      what: target.what,
      median: format.rate(median(rps[index] ?? []), 'req/s') + (failed > 0 ? ` (${failed} not 2xx!)` : ''),
      spread: format.spread(rps[index] ?? [], (value) => Math.round(value).toLocaleString('en-US')),
      ratio: target.against === undefined ? format.ratio(ratio) : `${format.ratio(ratio)} of ${against}`,
      goal: target.goal === undefined ? '' : `≥ ${target.goal} of ${against}`,
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
