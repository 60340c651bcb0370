import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, spawnCli } from '../helpers/cli.js';
import {
  type PostgresCluster,
  postgresTestsEnabled,
  startPostgresCluster,
  startPostgresProxy,
} from '../helpers/postgres.js';
import { reportFigures, SEED, scaled, seededRandom } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { createPostgresDatabase, runSql } from '../helpers/store-backends.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { type Answer, postPlant, send, sleep } from '../server/http-client.js';

/**
 * PostgreSQL going away under `plants serve`: stopped with `pg_ctl stop -m immediate` (a crash:
 * no checkpoint, connections cut) and started again, at random moments during bulk adds; and
 * `plants serve` itself killed with -9 mid-burst. After each, every plant acknowledged 200 is in
 * the table, and the CLI's NDJSON results agree with the table record for record. A cluster of
 * this file's own: the shared one must not be stopped under other files' feet.
 * CI: 3 restart cycles; `npm run test:long`: 50.
 */

const enabled = postgresTestsEnabled();
const TOKEN = `pg-restart-${randomBytes(9).toString('base64url')}`;
const CYCLES = scaled(3, 50);
/** Issue 42's restart loop: PLANTS_LONG runs it as the issue does. */
const LOOP = scaled(
  { runs: 1, records: 2000, restarts: 3, firstRetries: 1, busyLoops: 0 },
  { runs: 8, records: 20_000, restarts: 8, firstRetries: 10, busyLoops: 2 },
);
let cluster: PostgresCluster;
let temp: ReturnType<typeof makeTempDir>;

beforeAll(async () => {
  if (!enabled) return;
  temp = makeTempDir('plants-pg-restart-');
  cluster = await startPostgresCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.close();
  temp?.remove();
});

interface ResultLine {
  line: number;
  sent: boolean;
  status?: number;
  plant?: { id: number | string; name: string };
  error?: { error: number; message: string };
  /** How often it was sent, when more than once. */
  attempts?: number;
  /** What became of the record (issue 15): added, existing, conflict, rejected, invalid, not-sent, unknown. */
  outcome?: string;
  /** Set when a 409 met on a retry was settled by reading the plant back. */
  confirmed?: string;
}

/** The NDJSON a bulk add printed, one result per record; ids read exactly from the raw text. */
function parseResults(stdout: string): Array<ResultLine & { id?: bigint }> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = JSON.parse(line) as ResultLine;
      const id = /"plant":\{"id":(-?\d+)/.exec(line)?.[1];
      return { ...parsed, id: id === undefined ? undefined : BigInt(id) };
    });
}

/** Writes `count` NDJSON records with ids from `first` up, each with a name of its own. */
function writeRecords(file: string, first: bigint, count: number, tag: string): Map<bigint, string> {
  const records = new Map<bigint, string>();
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = first + BigInt(i);
    const name = `${tag}-${i}`;
    records.set(id, name);
    lines.push(`{"id":${id},"name":"${name}"}`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return records;
}

/** `plants serve --database` on this database, quiet. */
function serveOn(database: string): Promise<ServeProcess> {
  return startServeProcess(['--port', '0', '--quiet', '--token', TOKEN, '--database', database]);
}

/** Rows in the plants table now. */
async function countRows(database: string): Promise<number> {
  const [row] = await runSql<{ n: string }>(database, 'SELECT count(*)::text AS n FROM plants');
  return Number(row?.n ?? 0);
}

/** Polls an asynchronous condition every 50 ms until it holds, or fails naming it. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Rejects naming `what` if `promise` has not settled within `ms`: a guard against a hang, not a speed check. */
function unlessHung<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s: ${what}`)), ms);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

/** An add's answer in a few words: status, Retry-After, the Error's outcome and message. */
function kindOf(answer: Answer): string {
  const body = answer.json as { message?: string; outcome?: string } | undefined;
  return `${answer.status} retry-after=${answer.headers['retry-after']} outcome=${body?.outcome} ${body?.message}`;
}

// Not stored, send it again; and (issue 42) may be stored, said so in the Error's outcome, with no Retry-After.
const NOT_REACHED = '503 retry-after=1 outcome=undefined the database cannot be reached just now; try again shortly';
const MAYBE_STORED =
  '503 retry-after=undefined outcome=unknown the database went away while storing this plant, which may or may not be stored; once it is back, GET /plants/{id} tells';

// Whole processes, PostgreSQL stops and starts: minutes on a loaded machine, not vitest's 30 s default.
describe.skipIf(!enabled)(
  'PostgreSQL stopped and started under plants serve',
  { timeout: scaled(180_000, 3_600_000) },
  () => {
    it('answers 503 with Retry-After while the database is away, /healthz 503 and /livez 200, then reconnects by itself', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      let server: StoreServer | undefined;
      try {
        server = await startStoreServer({ database: location.database });
        const { url, token } = server;
        expect((await postPlant(url, token, '{"id":1,"name":"before"}')).status).toBe(200);
        await cluster.stop('immediate');
        try {
          const add = await postPlant(url, token, '{"id":2,"name":"while away"}');
          expect(add.status).toBe(503);
          expect(add.headers['retry-after']).toBe('1');
          expect(add.json).toEqual({
            error: 503,
            message: 'the database cannot be reached just now; try again shortly',
          });
          const list = await send(`${url}/plants`, { headers: { authorization: `Bearer ${token}` } });
          expect(list.status).toBe(503);
          expect(list.headers['retry-after']).toBe('1');
          expect((await send(`${url}/healthz`)).status).toBe(503);
          expect((await send(`${url}/readyz`)).status).toBe(503);
          const live = await send(`${url}/livez`);
          expect([live.status, live.text]).toEqual([200, '{"status":"ok"}']);
        } finally {
          await cluster.start();
        }
        // No restart of serve: the next requests find the database again.
        let status = 0;
        await eventually(
          async () => {
            status = (await postPlant(url, token, '{"id":2,"name":"after"}')).status;
            return status !== 503;
          },
          15_000,
          'an add to succeed after the restart',
        );
        expect(status).toBe(200);
        expect((await send(`${url}/healthz`)).status).toBe(200);
        expect(await location.readPlants()).toEqual([
          { id: 1n, name: 'before', tag: null },
          { id: 2n, name: 'after', tag: null },
        ]);
        expect(server.internalErrors).toEqual([]);
      } finally {
        await server?.close();
        await location.remove();
      }
    });

    it('answers every add in flight when PostgreSQL stops at once and stays away: 503 with Retry-After, and serve stays up', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      let serve: ServeProcess | undefined;
      // Holds the table locked, so that the adds' INSERTs are certainly on the wire, waiting,
      // when the database stops: the case where the store cannot know whether they committed.
      const locker = new pg.Client({ connectionString: location.database });
      const lockerErrors: Error[] = [];
      locker.on('error', (error) => lockerErrors.push(error));
      let stopped = false;
      try {
        serve = await serveOn(location.database);
        const { url } = serve;
        expect((await postPlant(url, TOKEN, '{"id":1,"name":"before"}')).status).toBe(200);
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE plants IN EXCLUSIVE MODE');
        const ids = Array.from({ length: 48 }, (_, i) => BigInt(i + 100));
        /** The answers' kinds in the order they came. */
        const arrived: string[] = [];
        const kindOfEither = (answer: Answer | string) => (typeof answer === 'string' ? answer : kindOf(answer));
        const inFlight = ids.map((id) =>
          postPlant(url, TOKEN, `{"id":${id},"name":"in flight ${id}"}`)
            .then(
              (answer): Answer | string => answer,
              (error: unknown) => `no answer: ${error instanceof Error ? error.message : String(error)}`,
            )
            .then((answer) => {
              arrived.push(kindOfEither(answer));
              return answer;
            }),
        );
        // Both batches the store keeps on the wire are inside PostgreSQL, waiting for the lock.
        const watcher = new pg.Client({ connectionString: location.database });
        await watcher.connect();
        try {
          await eventually(
            async () => {
              const { rows } = await watcher.query<{ waiting: string }>(
                "SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO plants%'",
              );
              return Number(rows[0]?.waiting) >= 2;
            },
            20_000,
            'two INSERT batches to wait on the lock',
          );
        } finally {
          await watcher.end();
        }
        await cluster.stop('immediate');
        stopped = true;
        // The store's statement time-out is 30 s: an answer only after it would be a hang.
        const answers = await unlessHung(Promise.all(inFlight), 25_000, 'adds in flight while PostgreSQL is down');
        const kinds = answers.map(kindOfEither);
        // Nothing committed behind the lock: each add is refused with Retry-After, never dropped.
        for (const kind of kinds) {
          expect([NOT_REACHED, MAYBE_STORED]).toContain(kind);
        }
        // The batches that were on the wire cannot know: they say the plant may be stored.
        expect(kinds.filter((kind) => kind === MAYBE_STORED).length).toBeGreaterThan(0);
        // The adds queued behind them were never sent: refused at once, not after the batches on
        // the wire gave up waiting for the database.
        const lastRefused = arrived.lastIndexOf(NOT_REACHED);
        expect(lastRefused).toBeGreaterThanOrEqual(0);
        expect(lastRefused).toBeLessThan(arrived.indexOf(MAYBE_STORED));
        expect(serve.child.exitCode).toBeNull();
        await cluster.start();
        stopped = false;
        // serve was not ended by the broken connections: it reconnects and takes adds again.
        await eventually(
          async () => (await postPlant(url, TOKEN, '{"id":2,"name":"after"}')).status !== 503,
          15_000,
          'an add to succeed after the restart',
        );
        expect(await location.readPlants()).toEqual([
          { id: 1n, name: 'before', tag: null },
          { id: 2n, name: 'after', tag: null },
        ]);
        expect(serve.stderr).not.toMatch(/Unhandled|at .*\.js:\d+/);
      } finally {
        if (stopped) await cluster.start();
        await locker.end().catch(() => undefined);
        await serve?.stop();
        await location.remove();
      }
    });

    it('answers every add in flight when the network to PostgreSQL swallows everything: 503 with Retry-After, not after the 30 s statement time-out', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      const proxy = await startPostgresProxy(cluster.port);
      const proxied = new URL(location.database);
      proxied.port = String(proxy.port);
      let serve: ServeProcess | undefined;
      try {
        serve = await startServeProcess(['--port', '0', '--quiet', '--token', TOKEN, '--database', proxied.toString()]);
        const { url } = serve;
        expect((await postPlant(url, TOKEN, '{"id":1,"name":"before"}')).status).toBe(200);
        proxy.cut();
        const ids = Array.from({ length: 48 }, (_, i) => BigInt(i + 100));
        const inFlight = ids.map((id) =>
          postPlant(url, TOKEN, `{"id":${id},"name":"in flight ${id}"}`).then(
            kindOf,
            (error: unknown) => `no answer: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
        // Nothing comes back, not even an error: only the store's own patience can answer these.
        const kinds = await unlessHung(Promise.all(inFlight), 25_000, 'adds in flight on a cut network');
        for (const kind of kinds) {
          expect([NOT_REACHED, MAYBE_STORED]).toContain(kind);
        }
        expect(kinds.filter((kind) => kind === MAYBE_STORED).length).toBeGreaterThan(0);
        proxy.restore();
        await eventually(
          async () => (await postPlant(url, TOKEN, '{"id":2,"name":"after"}')).status !== 503,
          20_000,
          'an add to succeed once the network is back',
        );
        // "May or may not be stored": a stalled batch sent again once the network came back may
        // have gone in, and then exactly as sent; nothing else is there.
        const stored = await location.readPlants();
        expect(stored.slice(0, 2)).toEqual([
          { id: 1n, name: 'before', tag: null },
          { id: 2n, name: 'after', tag: null },
        ]);
        for (const row of stored.slice(2)) expect(row).toEqual({ id: row.id, name: `in flight ${row.id}`, tag: null });
        expect(serve.child.exitCode).toBeNull();
      } finally {
        await serve?.stop();
        await proxy.close();
        await location.remove();
      }
    });

    it('reports a record added when its first attempt was answered "may or may not be stored" and it is read back as sent', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      let serve: ServeProcess | undefined;
      // Holds the table locked: the add's INSERT waits on the wire until the store's patience
      // ends and it answers 503 "may or may not be stored"; released, the INSERT commits.
      const locker = new pg.Client({ connectionString: location.database });
      locker.on('error', () => undefined);
      try {
        serve = await startServeProcess(['--port', '0', '--token', TOKEN, '--database', location.database]);
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE plants IN EXCLUSIVE MODE');
        const file = path.join(temp.dir, 'maybe-stored.ndjson');
        // Two records: a bulk add, whose NDJSON says what became of each.
        writeFileSync(file, '{"id":9007199254740993,"name":"maybe stored"}\n{"id":-7,"name":"also"}\n');
        const bulk = spawnCli(['add', '--file', file, '--base-url', serve.url, '--retries', '10'], {
          env: { PLANTS_TOKEN: TOKEN },
        });
        bulk.child.stdin.end();
        // Both answered while the lock holds: two 503s. The second is -7's (sent with the first,
        // queued behind its batch), never the first's retry, which leaves only after its answer
        // and a back-off. Released at the first 503, -7 could go in at once (a 200): CI saw it.
        await eventually(
          async () => (serve?.stderr.split('POST /plants 503').length ?? 0) > 2,
          60_000,
          'both adds answered 503 while the table is locked',
        );
        await locker.query('ROLLBACK');
        const result = await bulk.exited;
        const lines = parseResults(result.stdout);
        expect(await location.readPlants()).toEqual([
          { id: -7n, name: 'also', tag: null },
          { id: 9007199254740993n, name: 'maybe stored', tag: null },
        ]);
        // Both were answered 503 "may or may not be stored" while the lock held, then read back
        // (or, not there yet, sent again to meet 409 with the plant as sent).
        expect(
          lines.map((line) => ({ id: line.id, outcome: line.outcome, confirmed: line.confirmed })),
          result.stdout + result.stderr,
        ).toEqual([
          { id: 9007199254740993n, outcome: 'added', confirmed: 'by reading back' },
          { id: -7n, outcome: 'added', confirmed: 'by reading back' },
        ]);
        expect(result.code, result.stderr).toBe(0);
      } finally {
        await locker.end().catch(() => undefined);
        await serve?.stop();
        await location.remove();
      }
    });

    it('answers "may or may not be stored" when a batch cut off on the wire then fails inside the database when sent again', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      let serve: ServeProcess | undefined;
      const locker = new pg.Client({ connectionString: location.database });
      const watcher = new pg.Client({ connectionString: location.database });
      locker.on('error', () => undefined);
      try {
        serve = await serveOn(location.database);
        await locker.connect();
        await watcher.connect();
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE plants IN EXCLUSIVE MODE');
        const add = postPlant(serve.url, TOKEN, '{"id":5,"name":"cut off"}');
        let pid: number | undefined;
        await eventually(
          async () => {
            const { rows } = await watcher.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO plants%'",
            );
            pid = rows[0]?.pid;
            return pid !== undefined;
          },
          20_000,
          'the INSERT to wait on the lock',
        );
        // The INSERT was sent: its connection is cut (it may have committed, as far as the store
        // can tell), and the table it is sent again to is gone, a failure inside the database.
        await locker.query('ALTER TABLE plants RENAME TO plants_moved');
        await watcher.query('SELECT pg_terminate_backend($1)', [pid]);
        await locker.query('COMMIT');
        expect(kindOf(await unlessHung(add, 25_000, 'the add cut off'))).toBe(MAYBE_STORED);
      } finally {
        await locker.end().catch(() => undefined);
        await watcher.end().catch(() => undefined);
        await serve?.stop();
        await location.remove();
      }
    });

    // Every crash lands in the middle of a burst: adds in flight are answered 200 (committed),
    // 503 with Retry-After and sent again by the CLI, or 503 "may or may not be stored" and read
    // back by it (see the tests above for the 503s).
    it(`finishes bulk adds across ${CYCLES} crash-restarts with every record stored once, as the NDJSON says`, async () => {
      const next = seededRandom(SEED);
      const location = await createPostgresDatabase(cluster.url('postgres'));
      const serve = await serveOn(location.database);
      const totals = { cycles: 0, records: 0, acknowledged: 0, retried: 0, confirmedByReadingBack: 0, lost: 0 };
      try {
        for (let cycle = 0; cycle < CYCLES; cycle++) {
          const file = path.join(temp.dir, `cycle-${cycle}.ndjson`);
          const count = scaled(400, 1500);
          const first = BigInt(cycle) * 1_000_000n + 2n ** 60n;
          const records = writeRecords(file, first, count, `c${cycle}`);
          const bulk = spawnCli(
            ['add', '--file', file, '--base-url', serve.url, '--concurrency', '32', '--retries', '10'],
            { env: { PLANTS_TOKEN: TOKEN } },
          );
          bulk.child.stdin.end();
          // Crash the database at a random moment of the burst, keep it down a random while.
          await sleep(50 + next() * 400);
          await cluster.stop('immediate');
          await sleep(50 + next() * 500);
          await cluster.start();
          const result = await bulk.exited;
          const lines = parseResults(result.stdout);
          // One result per record, each line of the input once.
          expect(
            lines.map((line) => line.line),
            result.stderr,
          ).toEqual(Array.from({ length: count }, (_, i) => i + 1));
          expect(serve.child.exitCode, serve.stderr).toBeNull();
          const stored = new Map(
            (await location.readPlants())
              .filter((row) => records.has(row.id))
              .map((row) => [row.id, row.name] as const),
          );
          // Every record is in the table exactly as sent, once (ids are unique).
          expect(stored).toEqual(records);
          // And the NDJSON agrees with the table, row for row: every record is added, answered
          // 200 or, when a retry met 409 or an attempt was answered 503 "may or may not be
          // stored", confirmed by reading the plant back (issues 15, 42): so exit 0.
          const notAdded: string[] = [];
          for (const line of lines) {
            const id = first + BigInt(line.line - 1);
            if (line.outcome !== 'added') {
              notAdded.push(JSON.stringify(line));
              continue;
            }
            expect(line.id).toBe(id);
            if (stored.get(id) !== line.plant?.name) totals.lost += 1;
            if (line.status === 200) totals.acknowledged += 1;
            else {
              expect(line.confirmed, JSON.stringify(line)).toBe('by reading back');
              totals.confirmedByReadingBack += 1;
            }
          }
          expect(notAdded, result.stderr).toEqual([]);
          expect(result.code, result.stderr).toBe(0);
          totals.retried += lines.filter((line) => 'attempts' in line).length;
          totals.records += count;
          totals.cycles += 1;
        }
      } finally {
        reportFigures('postgres restarts', totals);
        await serve.stop();
        await location.remove();
      }
      expect(totals.lost).toBe(0);
    });

    // Issue 42's loop: eight immediate restarts during one bulk add, `--retries 10` and
    // `--retries 1` in turn, two busy processes beside it (long only: on CI's two cores they
    // would slow every other file). Records whose outcome disagrees with the table are counted:
    // `added` must be stored as sent; `rejected`, `not-sent` and `invalid` must not be stored;
    // `unknown` may be either. CI: one run of 2,000 records with three restarts, `--retries 1`.
    it(`reports every record of bulk adds across immediate restarts as the table holds it (${LOOP.runs} run${LOOP.runs === 1 ? '' : 's'})`, async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      const serve = await serveOn(location.database);
      const busy = Array.from({ length: LOOP.busyLoops }, () =>
        spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
      );
      const totals = { runs: 0, records: 0, added: 0, confirmed: 0, rejected: 0, notSent: 0, unknown: 0, disagree: 0 };
      const disagreements: string[] = [];
      try {
        for (let run = 0; run < LOOP.runs; run++) {
          const retries = run % 2 === 0 ? LOOP.firstRetries : 1;
          const file = path.join(temp.dir, `loop-${run}.ndjson`);
          const first = BigInt(run + 1) * 10_000_000n;
          const records = writeRecords(file, first, LOOP.records, `l${run}`);
          const bulk = spawnCli(['add', '--file', file, '--base-url', serve.url, '--retries', String(retries)], {
            env: { PLANTS_TOKEN: TOKEN },
            timeoutMs: 900_000,
          });
          bulk.child.stdin.end();
          // The restarts begin once the burst is under way, and end well before it does.
          await eventually(
            async () => (await countRows(location.database)) > 0,
            60_000,
            'the bulk add to store a record',
          );
          for (let restart = 0; restart < LOOP.restarts; restart++) {
            await cluster.stop('immediate');
            await cluster.start();
            await sleep(700);
          }
          const result = await bulk.exited;
          const lines = parseResults(result.stdout);
          expect(
            lines.map((line) => line.line),
            result.stderr,
          ).toEqual(Array.from({ length: LOOP.records }, (_, i) => i + 1));
          const stored = new Map((await location.readPlants()).map((row) => [row.id, row.name] as const));
          for (const line of lines) {
            const id = first + BigInt(line.line - 1);
            const kept = stored.get(id);
            const outcome = line.outcome ?? '';
            const agrees =
              outcome === 'added'
                ? kept === records.get(id)
                : outcome === 'rejected' || outcome === 'not-sent'
                  ? kept === undefined
                  : outcome === 'unknown';
            if (outcome === 'added') totals.added += 1;
            if (line.confirmed !== undefined) totals.confirmed += 1;
            if (outcome === 'rejected') totals.rejected += 1;
            if (outcome === 'not-sent') totals.notSent += 1;
            if (outcome === 'unknown') totals.unknown += 1;
            if (!agrees) {
              totals.disagree += 1;
              if (disagreements.length < 10) disagreements.push(`stored=${kept !== undefined} ${JSON.stringify(line)}`);
            }
          }
          // Nothing stored that was not reported sent.
          for (const [id, name] of stored) expect(records.get(id) ?? name).toBe(name);
          expect(serve.child.exitCode, serve.stderr).toBeNull();
          reportFigures(`postgres restart loop, run ${run + 1} (--retries ${retries})`, {
            exit: result.code ?? 'none',
            rejected: lines.filter((line) => line.outcome === 'rejected').length,
            unknown: lines.filter((line) => line.outcome === 'unknown').length,
            disagree: totals.disagree,
          });
          totals.records += LOOP.records;
          totals.runs += 1;
        }
      } finally {
        for (const child of busy) child.kill('SIGKILL');
        reportFigures('postgres restart loop', totals);
        await serve.stop();
        await location.remove();
      }
      expect(disagreements).toEqual([]);
    });

    it('loses no acknowledged plant when plants serve is killed with -9 mid-burst', async () => {
      const location = await createPostgresDatabase(cluster.url('postgres'));
      let serve: ServeProcess | undefined;
      try {
        serve = await serveOn(location.database);
        const file = path.join(temp.dir, 'kill.ndjson');
        const records = writeRecords(file, -(2n ** 62n), 4000, 'k');
        const bulk = spawnCli(
          ['add', '--file', file, '--base-url', serve.url, '--concurrency', '64', '--retries', '0'],
          {
            env: { PLANTS_TOKEN: TOKEN },
          },
        );
        bulk.child.stdin.end();
        // Kill once the burst is under way: some plants acknowledged, some not yet.
        await eventually(async () => (await location.readPlants()).length > 200, 20_000, 'adds to be under way');
        expect(await serve.stop('SIGKILL')).toBe('SIGKILL');
        const result = await bulk.exited;
        const lines = parseResults(result.stdout);
        const stored = new Map((await location.readPlants()).map((row) => [row.id, row.name] as const));
        const acknowledged = lines.filter((line) => line.status === 200);
        expect(acknowledged.length).toBeGreaterThan(0);
        for (const line of acknowledged) expect(stored.get(line.id as bigint)).toBe(line.plant?.name);
        // And nothing in the table that was not sent.
        for (const [id, name] of stored) expect(records.get(id)).toBe(name);
        reportFigures('postgres serve kill -9', {
          sent: lines.filter((line) => line.sent).length,
          acknowledged: acknowledged.length,
          stored: stored.size,
          lost: acknowledged.filter((line) => stored.get(line.id as bigint) !== line.plant?.name).length,
        });
      } finally {
        if (serve !== undefined && serve.child.exitCode === null && serve.child.signalCode === null) await serve.stop();
        await location.remove();
      }
    });
  },
);
