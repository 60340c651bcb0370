import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli, spawnCli } from '../helpers/cli.js';
import { type PostgresNode, type PostgresPair, postgresTestsEnabled, startPostgresPair } from '../helpers/postgres.js';
import { reportFigures, scaled } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { readPostgresPlants, runSql } from '../helpers/store-backends.js';
import { postPlant, send, sleep } from '../server/http-client.js';

/**
 * `plants serve` on a primary and a synchronous streaming standby (test/helpers/postgres.ts's
 * pair), given both in one multi-host URL. The primary is crashed (`pg_ctl stop -m immediate`)
 * and the standby promoted (`pg_ctl promote`) in the middle of a bulk add through the real CLI
 * with its default settings: the bulk add ends 0, every record is on the new primary once, as
 * sent, every 200 any instance answered is there and readable, and each instance answers 200
 * again by itself. The former primary, started again as it was (out of recovery, writable, on
 * the old timeline), is never written to. Then over and back, twice. The time from promotion to
 * the first 200 is printed; `npm run bench` measures its spread over 10 failovers.
 */

const enabled = postgresTestsEnabled();
const TOKEN = `pg-failover-${randomBytes(9).toString('base64url')}`;
/** Promotions in the over-and-back test: over and back twice in CI; `npm run test:long`: 10 over and back. */
const ROUNDS = scaled(4, 20);
let temp: ReturnType<typeof makeTempDir>;

beforeAll(() => {
  if (enabled) temp = makeTempDir('plants-pg-failover-');
});
afterAll(() => temp?.remove());

interface ResultLine {
  line: number;
  status?: number;
  outcome?: string;
  plant?: { name: string };
}

/** Writes `count` NDJSON records with ids from `first` up, each with a name of its own. */
function writeRecords(file: string, first: bigint, count: number, tag: string): Map<bigint, string> {
  const records = new Map<bigint, string>();
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = first + BigInt(i);
    records.set(id, `${tag}-${i}`);
    lines.push(`{"id":${id},"name":"${tag}-${i}"}`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return records;
}

/** Polls a condition every 50 ms until it holds, or fails naming it: a guard against a hang, not a speed check. */
async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Probe {
  id: bigint;
  sentAt: number;
  receivedAt: number;
  status: number;
}

/** Adds one plant after another through one instance, every 20 ms, keeping each answer. */
function startProber(url: string, firstId: bigint) {
  const answers: Probe[] = [];
  let stopped = false;
  const done = (async () => {
    for (let id = firstId; !stopped; id++) {
      const sentAt = Date.now();
      let status = 0;
      try {
        status = (await postPlant(url, TOKEN, `{"id":${id},"name":"probe-${id}"}`)).status;
      } catch {
        // No answer: counted as status 0, never as stored.
      }
      answers.push({ id, sentAt, receivedAt: Date.now(), status });
      await sleep(20);
    }
  })();
  return {
    answers,
    /** Milliseconds from `since` to the first 200 to a request sent after it. */
    firstOkAfter(since: number): number | undefined {
      const first = answers.find((answer) => answer.sentAt >= since && answer.status === 200);
      return first === undefined ? undefined : first.receivedAt - since;
    },
    async stop() {
      stopped = true;
      await done;
    },
  };
}

type Prober = ReturnType<typeof startProber>;

function startServe(database: string): Promise<ServeProcess> {
  return startServeProcess(['--port', '0', '--quiet', '--token', TOKEN, '--database', database]);
}

async function countOn(node: PostgresNode, database: string): Promise<number> {
  const rows = await runSql<{ n: string }>(node.url(database), 'SELECT count(*)::text AS n FROM plants');
  return Number(rows[0]?.n);
}

/**
 * Starts a bulk add of `count` records through `serve`, crashes the primary once a tenth of them
 * are stored and promotes the standby; returns the records, the CLI's end, and when promotion began.
 */
async function bulkAcrossFailover(
  pair: PostgresPair,
  database: { name: string },
  serve: ServeProcess,
  first: bigint,
  count: number,
  tag: string,
) {
  const file = path.join(temp.dir, `${tag}.ndjson`);
  const records = writeRecords(file, first, count, tag);
  const before = await countOn(pair.primary, database.name);
  const bulk = spawnCli(['add', '--file', file, '--base-url', serve.url], {
    env: { PLANTS_TOKEN: TOKEN },
    timeoutMs: 120_000,
  });
  bulk.child.stdin.end();
  const watcher = new pg.Client({ connectionString: pair.primary.url(database.name) });
  watcher.on('error', () => undefined);
  await watcher.connect();
  try {
    await eventually(
      async () => {
        const { rows } = await watcher.query<{ n: string }>('SELECT count(*)::text AS n FROM plants');
        return Number(rows[0]?.n) - before >= count / 10;
      },
      30_000,
      `the bulk add ${tag} to be under way`,
    );
  } finally {
    await watcher.end().catch(() => undefined);
  }
  const { promoteStarted } = await pair.failover();
  const result = await bulk.exited;
  return { records, result, promoteStarted };
}

/** Every record on the primary exactly as sent, and the NDJSON saying each was added. */
async function expectAllStored(
  node: PostgresNode,
  database: string,
  records: Map<bigint, string>,
  result: { code: number | null; stdout: string; stderr: string },
) {
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ResultLine);
  expect(lines.length, result.stderr).toBe(records.size);
  const notAdded = lines.filter((line) => line.outcome !== 'added').map((line) => JSON.stringify(line));
  expect(notAdded, result.stderr).toEqual([]);
  expect(result.code, result.stderr).toBe(0);
  const stored = new Map(
    (await readPostgresPlants(node.url(database)))
      .filter((row) => records.has(row.id))
      .map((row) => [row.id, row.name] as const),
  );
  // The id is the table's primary key: a map equal to the records is each stored once, as sent.
  expect(stored.size).toBe(records.size);
  expect(stored).toEqual(records);
}

/** Every plant a prober was answered 200 for is on `node`, and readable through every instance. */
async function expectProbesStored(node: PostgresNode, database: string, probers: Prober[], serves: ServeProcess[]) {
  const stored = new Map((await readPostgresPlants(node.url(database))).map((row) => [row.id, row.name] as const));
  let acknowledged = 0;
  for (const prober of probers) {
    for (const answer of prober.answers.filter((a) => a.status === 200)) {
      acknowledged += 1;
      expect(stored.get(answer.id), `probe ${answer.id} acknowledged`).toBe(`probe-${answer.id}`);
    }
  }
  // Read back through the instances (a sample of each prober's 200s, all of them would be thousands of GETs).
  for (const prober of probers) {
    const oks = prober.answers.filter((a) => a.status === 200);
    for (const answer of oks.filter((_, i) => i % 5 === 0 || i === oks.length - 1)) {
      for (const serve of serves) {
        const got = await send(`${serve.url}/plants/${answer.id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect([got.status, (got.json as { name?: string } | undefined)?.name]).toEqual([200, `probe-${answer.id}`]);
      }
    }
  }
  return acknowledged;
}

describe.skipIf(!enabled)(
  'plants serve on a synchronous primary and standby, failed over',
  { timeout: scaled(180_000, 900_000) },
  () => {
    it('answers 503 with Retry-After while no server takes writes, /readyz 503, /livez 200, and refuses to start on a standby alone', async () => {
      const pair = await startPostgresPair();
      let serve: ServeProcess | undefined;
      try {
        const database = await pair.createDatabase();
        serve = await startServe(database.url);
        const { url } = serve;
        const auth = { authorization: `Bearer ${TOKEN}` };
        expect((await postPlant(url, TOKEN, '{"id":1,"name":"before"}')).status).toBe(200);
        // The primary crashed, the standby not promoted: no server takes writes.
        await pair.primary.stop('immediate');
        const noPrimary = {
          error: 503,
          message: 'no database server takes writes just now (failover under way?); try again shortly',
        };
        // The first adds may meet the lost connection itself (a 503, the plain "cannot be
        // reached") until the pool has seen it go and searches; from then on, the search's answer.
        let add = await postPlant(url, TOKEN, '{"id":2,"name":"while none"}');
        await eventually(
          async () => {
            if ((add.json as { message?: string }).message === noPrimary.message) return true;
            expect(add.status).toBe(503);
            add = await postPlant(url, TOKEN, '{"id":2,"name":"while none"}');
            return false;
          },
          30_000,
          'the search for a primary to answer',
        );
        expect([add.status, add.headers['retry-after'], add.json]).toEqual([503, '2', noPrimary]);
        // Reads are not served from the standby (it may not have replayed an acknowledged commit yet).
        const read = await send(`${url}/plants/1`, { headers: auth });
        expect([read.status, read.headers['retry-after'], read.json]).toEqual([503, '2', noPrimary]);
        expect((await send(`${url}/readyz`)).status).toBe(503);
        const live = await send(`${url}/livez`);
        expect([live.status, live.text]).toEqual([200, '{"status":"ok"}']);
        // A second instance cannot start on the standby alone: exit 3, one line naming each server.
        const refused = await runCli(['serve', '--port', '0', '--token', TOKEN, '--database', database.url], {
          timeoutMs: 30_000,
        });
        expect(refused.code, refused.stderr).toBe(3);
        expect(refused.stderr).toContain('no host takes writes');
        expect(refused.stderr).toContain('is a standby (in recovery)');
        expect(refused.stderr).not.toMatch(/at .*\.js:\d+/);
        expect(refused.stderr).not.toContain(new URL(database.url.replace(/,[^/]*/, '')).password);
        await pair.failover();
        await eventually(
          async () => (await postPlant(url, TOKEN, '{"id":2,"name":"after"}')).status === 200,
          30_000,
          'an add to succeed on the promoted standby',
        );
        expect((await send(`${url}/readyz`)).status).toBe(200);
        const plants = await readPostgresPlants(pair.primary.url(database.name));
        expect(plants.map((plant) => [plant.id, plant.name])).toEqual([
          [1n, 'before'],
          [2n, 'after'],
        ]);
        expect(serve.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
      } finally {
        await serve?.stop();
        await pair.close();
      }
    });

    it('finishes a 20,000-record bulk add across a failover, answers 200 again by itself, and never writes to the former primary', async () => {
      const pair = await startPostgresPair();
      const serves: ServeProcess[] = [];
      const probers: Prober[] = [];
      try {
        const database = await pair.createDatabase();
        serves.push(...(await Promise.all([startServe(database.url), startServe(database.url)])));
        probers.push(...serves.map((serve, i) => startProber(serve.url, BigInt(i + 1) * 10n ** 15n)));
        const formerPrimary = pair.primary;
        const { records, result, promoteStarted } = await bulkAcrossFailover(
          pair,
          database,
          serves[0] as ServeProcess,
          1n,
          20_000,
          'bulk',
        );
        // Each instance finds the new primary by itself (a hang guard, not a speed check: the bench times it).
        await eventually(
          () => probers.every((prober) => prober.firstOkAfter(promoteStarted) !== undefined),
          30_000,
          'both instances to answer 200 again after the promotion',
        );
        await Promise.all(probers.map((prober) => prober.stop()));
        await expectAllStored(pair.primary, database.name, records, result);
        const acknowledged = await expectProbesStored(pair.primary, database.name, probers, serves);

        // The former primary, started as it was: out of recovery, writable, on the old timeline.
        await formerPrimary.start();
        const [{ in_recovery: inRecovery } = { in_recovery: true }] = await runSql<{ in_recovery: boolean }>(
          formerPrimary.url(database.name),
          'SELECT pg_is_in_recovery() AS in_recovery',
        );
        expect(inRecovery).toBe(false);
        const formerCount = await countOn(formerPrimary, database.name);
        // A fresh instance sees both servers taking writes and must pick the promoted one.
        serves.push(await startServe(database.url));
        const after = new Map<bigint, string>();
        for (const [i, serve] of serves.entries()) {
          const id = 9n * 10n ** 15n + BigInt(i);
          const answer = await postPlant(serve.url, TOKEN, `{"id":${id},"name":"after-${i}"}`);
          expect(answer.status, answer.text).toBe(200);
          after.set(id, `after-${i}`);
        }
        const onNew = new Map((await readPostgresPlants(pair.primary.url(database.name))).map((r) => [r.id, r.name]));
        for (const [id, name] of after) expect(onNew.get(id)).toBe(name);
        // The promoted server crashes too, with the former primary up and writable: every instance
        // searches again, and must wait for the promoted one rather than take the former (its timeline is older).
        await pair.primary.stop('immediate');
        for (const [i, serve] of serves.entries()) {
          const answer = await postPlant(serve.url, TOKEN, `{"id":${8n * 10n ** 15n + BigInt(i)},"name":"none"}`);
          expect([answer.status, (answer.json as { message?: string }).message]).toEqual([
            503,
            expect.not.stringContaining('may or may not be stored'),
          ]);
        }
        await pair.primary.start();
        for (const [i, serve] of serves.entries()) {
          const id = 8n * 10n ** 15n + BigInt(i);
          await eventually(
            async () => (await postPlant(serve.url, TOKEN, `{"id":${id},"name":"back-${i}"}`)).status === 200,
            30_000,
            `instance ${i + 1} to answer 200 once the promoted server is back`,
          );
          after.set(id, `back-${i}`);
        }
        const onRestarted = new Map(
          (await readPostgresPlants(pair.primary.url(database.name))).map((r) => [r.id, r.name]),
        );
        for (const [id, name] of after) expect(onRestarted.get(id)).toBe(name);
        expect(await countOn(formerPrimary, database.name)).toBe(formerCount);
        // No connection of serve's stays on it (a pool there would keep its connections open).
        const sessions = await runSql<{ n: string }>(
          formerPrimary.url('postgres'),
          "SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = 'plants serve'",
        );
        expect(sessions[0]?.n).toBe('0');
        for (const serve of serves) {
          expect(serve.child.exitCode, serve.stderr).toBeNull();
          expect(serve.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
        }
        reportFigures('postgres failover', {
          records: records.size,
          probesAcknowledged: acknowledged,
          firstOkAfterPromotionMs: probers.map((prober) => prober.firstOkAfter(promoteStarted)).join('/'),
          lost: 0,
        });
      } finally {
        await Promise.all(probers.map((prober) => prober.stop()));
        await Promise.all(serves.map((serve) => serve.stop()));
        await pair.close();
      }
    });

    it('fails over and back twice in a row, the former primary re-seeded as a standby each time, losing nothing', async () => {
      const pair = await startPostgresPair();
      const serves: ServeProcess[] = [];
      let probers: Prober[] = [];
      const firstOk: number[] = [];
      try {
        const database = await pair.createDatabase();
        serves.push(...(await Promise.all([startServe(database.url), startServe(database.url)])));
        const all = new Map<bigint, string>();
        for (let round = 0; round < ROUNDS; round++) {
          probers = serves.map((serve, i) => startProber(serve.url, BigInt(round * 2 + i + 1) * 10n ** 15n));
          const { records, result, promoteStarted } = await bulkAcrossFailover(
            pair,
            database,
            serves[round % 2] as ServeProcess,
            BigInt(round + 1) * 10n ** 9n,
            3000,
            `round${round}`,
          );
          await eventually(
            () => probers.every((prober) => prober.firstOkAfter(promoteStarted) !== undefined),
            30_000,
            `both instances to answer 200 again after promotion ${round + 1}`,
          );
          await Promise.all(probers.map((prober) => prober.stop()));
          for (const prober of probers) firstOk.push(prober.firstOkAfter(promoteStarted) as number);
          await expectAllStored(pair.primary, database.name, records, result);
          await expectProbesStored(pair.primary, database.name, probers, serves);
          for (const [id, name] of records) all.set(id, name);
          // The former primary becomes a synchronous standby of the new one, for the next round.
          await pair.reseed();
        }
        // Everything of every round is on the last primary, and (synchronous, re-seeded) on its standby.
        for (const node of [pair.primary, pair.standby]) {
          const stored = new Map((await readPostgresPlants(node.url(database.name))).map((r) => [r.id, r.name]));
          for (const [id, name] of all) expect(stored.get(id)).toBe(name);
        }
        for (const serve of serves) expect(serve.child.exitCode, serve.stderr).toBeNull();
        reportFigures('postgres failover and back', {
          failovers: ROUNDS,
          records: all.size,
          firstOkAfterPromotionMs: firstOk.join('/'),
          lost: 0,
        });
      } finally {
        await Promise.all(probers.map((prober) => prober.stop()));
        await Promise.all(serves.map((serve) => serve.stop()));
        await pair.close();
      }
    });
  },
);
