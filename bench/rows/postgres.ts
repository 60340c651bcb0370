/**
 * e. PostgreSQL: plants serve --database against the same INSERTs driven straight from the
 * driver (one row per round trip, the same requests in flight), against plants serve on SQLite
 * `normal`, and again with 1,000,000 plants already stored. A PostgreSQL of the bench's own,
 * started as the tests start theirs (test/helpers/postgres.ts), stock settings, fsync on.
 */
import path from 'node:path';
import pg from 'pg';
import { startPostgresCluster } from '../../test/helpers/postgres.js';
import { bench, clientCpu, node, plan, serverCpu } from '../lib/context.js';
import { freshDir } from '../lib/files.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { type LoadResult, load, serverLoad } from '../lib/load.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

interface Sample {
  rps: number;
  p99: number;
  cpu?: number;
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

let firstId = 1;

/** The driver alone, one row per round trip, as many in flight as the server load keeps. */
async function ceiling(url: string, seconds: number): Promise<Sample> {
  const options = { url, connections: serverLoad.connections, seconds, firstId: -(2 ** 52) + firstId };
  firstId += 10_000_000;
  const result = await run(node, [path.join(bench, 'pg-ceiling.mjs'), JSON.stringify(options)], {
    timeoutMs: (seconds + 60) * 1000,
    cpu: clientCpu,
  });
  if (result.code !== 0) throw new Error(`pg-ceiling failed (exit ${result.code}):\n${result.stderr.slice(-2000)}`);
  const parsed = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { rps: number; latencyP99: number };
  return { rps: parsed.rps, p99: parsed.latencyP99 };
}

async function serve(database: string, durability: 'full' | 'normal' = 'full'): Promise<Sample & { failed: number }> {
  const server = await startPlantsServe(database, durability, serverCpu);
  try {
    const result: LoadResult = await load(server, plan.serverSeconds);
    return {
      rps: result.rps,
      p99: result.latencyP99 ?? 0,
      cpu: result.cpuPerRequestUs,
      failed: result.non2xx + result.errors,
    };
  } finally {
    await server.stop();
  }
}

async function postgresRows(): Promise<Row[]> {
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    return [noteRow('e1', 'PostgreSQL', `skipped: ${(error as Error).message.split('\n')[0]}`)];
  }
  try {
    const admin = cluster.url('postgres');
    await sql(admin, 'CREATE DATABASE bench');
    await sql(admin, 'CREATE DATABASE bench_million');
    const database = cluster.url('bench');
    const million = cluster.url('bench_million');
    const samples: Record<'ceiling' | 'pg' | 'sqlite' | 'million', Sample[]> = {
      ceiling: [],
      pg: [],
      sqlite: [],
      million: [],
    };
    let failed = 0;
    // The table serve creates, made by a first start, so the driver alone has it too.
    await (await startPlantsServe(database, 'full', serverCpu)).stop();
    for (let round = 0; round < plan.serverRuns; round++) {
      progress(`postgres round ${round + 1}/${plan.serverRuns}: driver alone`);
      samples.ceiling.push(await ceiling(database, plan.serverSeconds));
      progress(`postgres round ${round + 1}/${plan.serverRuns}: plants serve --database`);
      const onPg = await serve(database);
      failed += onPg.failed;
      samples.pg.push(onPg);
      progress(`postgres round ${round + 1}/${plan.serverRuns}: plants serve --durability normal (file db)`);
      const onSqlite = await serve(path.join(freshDir('pg-vs-sqlite'), 'plants.db'), 'normal');
      failed += onSqlite.failed;
      samples.sqlite.push(onSqlite);
    }
    const stored = plan.serverRuns === 1 ? 100_000 : 1_000_000;
    progress(`postgres: storing ${stored.toLocaleString('en-US')} plants`);
    await (await startPlantsServe(million, 'full', serverCpu)).stop();
    await sql(
      million,
      `INSERT INTO plants (id, name, tag) SELECT g * 9000000000, convert_to('stored ' || g, 'UTF8'), convert_to('bench', 'UTF8') FROM generate_series(1, ${stored}) AS g`,
    );
    for (let round = 0; round < plan.serverRuns; round++) {
      progress(`postgres round ${round + 1}/${plan.serverRuns}: plants serve --database, ${stored} stored`);
      const full = await serve(million);
      failed += full.failed;
      samples.million.push(full);
    }
    const rate = (list: Sample[]) => median(list.map((sample) => sample.rps));
    const p99 = (list: Sample[]) => `p99 ${median(list.map((sample) => sample.p99)).toFixed(1)} ms`;
    const cpu = (list: Sample[]) => {
      const values = list.flatMap((sample) => (sample.cpu === undefined ? [] : [sample.cpu]));
      return values.length === 0 ? '' : `${median(values).toFixed(1)} µs`;
    };
    const ratio = (list: Sample[], base: Sample[]) => {
      const ratios = list.map((sample, index) => sample.rps / (base[index]?.rps ?? base[0]?.rps ?? 1));
      return median(ratios);
    };
    const vsCeiling = ratio(samples.pg, samples.ceiling);
    const row = (id: string, what: string, list: Sample[], r: number, goal: string, met?: boolean): Row => ({
      id,
      what,
      median: `${format.rate(rate(list), 'req/s')}, ${p99(list)}${failed > 0 ? ` (${failed} not 2xx!)` : ''}`,
      spread: format.spread(
        list.map((sample) => sample.rps),
        (value) => Math.round(value).toLocaleString('en-US'),
      ),
      ratio: format.ratio(r),
      goal,
      result: met === undefined ? '' : verdict(failed === 0 && met),
      cpu: cpu(list),
    });
    return [
      row('e1', 'pg driver alone, INSERT … ON CONFLICT, one row a round trip (ceiling)', samples.ceiling, 1, ''),
      row(
        'e2',
        'plants serve --database (PostgreSQL, batched)',
        samples.pg,
        vsCeiling,
        '≥ 0.8 of e1; > 1 batched',
        vsCeiling > 1,
      ),
      row(
        'e3',
        'plants serve --durability normal (SQLite file), for e2',
        samples.sqlite,
        ratio(samples.pg, samples.sqlite),
        'e2 / e3',
      ),
      row(
        'e4',
        `plants serve --database with ${stored.toLocaleString('en-US')} plants stored`,
        samples.million,
        ratio(samples.million, samples.pg),
        '≈ 1 of e2 (throughput holds)',
        ratio(samples.million, samples.pg) >= 0.8,
      ),
    ];
  } finally {
    await cluster.close();
  }
}

export const postgres: RowGroup = { key: 'e', title: 'postgres', rows: postgresRows };
