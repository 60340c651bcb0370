/**
 * h. PostgreSQL failover: two plants serve instances on a synchronous primary and standby
 * (test/helpers/postgres.ts's pair) in one multi-host URL. 10 failovers, alternating between the
 * two servers: the primary crashed (`pg_ctl stop -m immediate`), the standby promoted
 * (`pg_ctl promote`), then the former primary re-seeded as a synchronous standby. Each instance
 * is sent an add every 20 ms; the time from the start of `pg_ctl promote` to the first 200 to
 * an add sent after it is the figure (issue 31's goal: within 5 s). Adds per second are
 * measured on the first primary, and after the 10 failovers (on the last, with its re-seeded
 * synchronous standby).
 */
import { startPostgresPair } from '../../test/helpers/postgres.js';
import { plan, serverCpu, token } from '../lib/context.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { type LoadResult, load } from '../lib/load.js';
import { sleep } from '../lib/processes.js';
import { type Server, startPlantsServe } from '../lib/servers.js';

const FAILOVERS = 10;
const GOAL_MS = 5000;

/** Adds one plant after another through one instance, every 20 ms, keeping when each was sent and answered 200. */
function startProber(url: string, firstId: number) {
  const oks: Array<{ sentAt: number; answeredAt: number }> = [];
  let stopped = false;
  const done = (async () => {
    for (let id = firstId; !stopped; id++) {
      const sentAt = Date.now();
      try {
        const response = await fetch(`${url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: `{"id":${id},"name":"failover probe"}`,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        if (response.status === 200) oks.push({ sentAt, answeredAt: Date.now() });
      } catch {
        // No answer: keep asking.
      }
      await sleep(20);
    }
  })();
  return {
    /** ms from `since` to the answer of the first add sent after it and answered 200. */
    firstOkAfter(since: number): number | undefined {
      const ok = oks.find((answer) => answer.sentAt >= since);
      return ok === undefined ? undefined : ok.answeredAt - since;
    },
    async stop() {
      stopped = true;
      await done;
    },
  };
}

async function failoverRows(): Promise<Row[]> {
  let pair: Awaited<ReturnType<typeof startPostgresPair>>;
  try {
    pair = await startPostgresPair();
  } catch (error) {
    return [noteRow('h1', 'PostgreSQL failover', `skipped: ${(error as Error).message.split('\n')[0]}`)];
  }
  const servers: Server[] = [];
  try {
    const database = await pair.createDatabase();
    servers.push(await startPlantsServe(database.url, 'full', serverCpu));
    servers.push(await startPlantsServe(database.url, 'full', serverCpu));
    const [first] = servers as [Server, Server];
    const loads = async (when: string): Promise<LoadResult[]> => {
      const results: LoadResult[] = [];
      for (let run = 0; run < plan.serverRuns; run++) {
        progress(`failover: adds/s ${when}, ${run + 1}/${plan.serverRuns}`);
        results.push(await load(first, plan.serverSeconds));
      }
      return results;
    };
    const before = await loads('before');
    const times: number[] = [];
    let missed = 0;
    let probeId = 2 ** 52;
    for (let round = 0; round < FAILOVERS; round++) {
      progress(`failover ${round + 1}/${FAILOVERS}`);
      // Adds keep coming to both instances from before the crash.
      const probers = servers.map((server) => {
        probeId += 10_000_000;
        return startProber(server.url, probeId);
      });
      await sleep(100);
      const { promoteStarted } = await pair.failover();
      const deadline = Date.now() + 30_000;
      while (probers.some((prober) => prober.firstOkAfter(promoteStarted) === undefined) && Date.now() < deadline) {
        await sleep(20);
      }
      await Promise.all(probers.map((prober) => prober.stop()));
      for (const prober of probers) {
        const time = prober.firstOkAfter(promoteStarted);
        if (time === undefined) missed += 1;
        else times.push(time);
      }
      await pair.reseed();
    }
    const after = await loads('after');
    const sorted = [...times].sort((a, b) => a - b);
    const worst = sorted.at(-1) ?? Number.NaN;
    const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] ?? Number.NaN;
    const failed = (results: LoadResult[]) => results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
    const rate = (results: LoadResult[]) => median(results.map((result) => result.rps));
    const rateSpread = (results: LoadResult[]) =>
      format.spread(
        results.map((result) => result.rps),
        (value) => Math.round(value).toLocaleString('en-US'),
      );
    return [
      {
        id: 'h1',
        what: `promotion to first 200, 2 serve instances × ${FAILOVERS} failovers (pg_ctl promote started → add answered)`,
        median: `${format.ms(median(times))}, p90 ${format.ms(p90)}${missed > 0 ? ` (${missed} never came back!)` : ''}`,
        spread: format.spread(times, format.ms),
        ratio: '',
        goal: `every one ≤ ${GOAL_MS / 1000} s`,
        result: verdict(missed === 0 && worst <= GOAL_MS),
      },
      {
        id: 'h2',
        what: 'adds/s through one instance, synchronous standby, before the failovers',
        median: `${format.rate(rate(before), 'req/s')}${failed(before) > 0 ? ` (${failed(before)} not 2xx!)` : ''}`,
        spread: rateSpread(before),
        ratio: '1',
        goal: '',
        result: '',
      },
      {
        id: 'h3',
        what: `the same after ${FAILOVERS} failovers (new primary, re-seeded synchronous standby)`,
        median: `${format.rate(rate(after), 'req/s')}${failed(after) > 0 ? ` (${failed(after)} not 2xx!)` : ''}`,
        spread: rateSpread(after),
        ratio: format.ratio(rate(after) / rate(before)),
        goal: '≈ 1 of h2',
        result: verdict(failed(after) === 0 && rate(after) / rate(before) >= 0.8),
      },
    ];
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await pair.close();
  }
}

export const failover: RowGroup = { key: 'h', title: 'postgres failover', rows: failoverRows };
