import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/server/stores/sqlite/sqlite-driver.js';
import { useFixtureServer } from '../helpers/fixture-server.js';
import {
  expectNoSecret,
  expectOneLineError,
  fcOptions,
  LONG,
  readStoredBytes,
  reportFigures,
  scaled,
} from '../helpers/reliability.js';
import { startServeProcess, useServeProcess } from '../helpers/serve-process.js';
import { holdSqliteLock } from '../helpers/sqlite-lock.js';
import { readStoredPlants } from '../helpers/store-server.js';
import { makeUnwritable } from '../helpers/unwritable.js';
import { useTempUser } from '../helpers/user.js';
import { RawConnection, sleep } from '../server/http-client.js';

/**
 * Faults at the level a user meets them: `plants serve` and `plants add` as child processes.
 * What test/server/start.test.ts and test/commands already cover in-process or for one case
 * (not-SQLite files, slow clients with short limits, one disconnect, --timeout, SIGINT during a
 * bulk add) is not repeated here.
 */

const TOKEN = `fault-${randomBytes(12).toString('base64url')}`;
/** Its folder holds the tests' databases; its runs send TOKEN. */
const user = useTempUser(undefined, { token: TOKEN });
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder of its own for one test's database (tests here run concurrently). */
function ownFolder(name: string): string {
  const folder = path.join(user.dir, `${name}.d`);
  mkdirSync(folder);
  return folder;
}

/** A plants database with a few plants in it, made by `plants serve` itself, closed cleanly. */
async function plantsDatabase(name: string): Promise<string> {
  const file = path.join(ownFolder(name), name);
  const serve = await startServeProcess(['--port', '0', '--db', file, '--token', TOKEN, '--quiet']);
  const pool = new Pool(serve.url);
  for (const id of [1, 9223372036854775807n]) {
    const answer = await pool.request({
      path: '/plants',
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: `{"id":${id},"name":"kept"}`,
    });
    expect(answer.statusCode).toBe(200);
    await answer.body.text();
  }
  await pool.close();
  await serve.waitForStderr('Ctrl-C stops the server');
  expect(await serve.stop('SIGTERM')).toBe(0);
  return file;
}

/** Runs `plants serve` on `database`, expecting a refusal: exit 2, one clear line, the file unchanged. */
async function expectRefusal(database: string, message: RegExp): Promise<void> {
  const folder = path.dirname(database);
  const listing = readdirSync(folder).sort();
  const bytes = readFileSync(database);
  const result = await user.run(['serve', '--port', '0', '--db', database, '--token', TOKEN], { timeoutMs: 30_000 });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expectOneLineError(result.stderr);
  expect(result.stderr).toMatch(message);
  expectNoSecret(TOKEN, { stdout: result.stdout, stderr: result.stderr });
  expect(readFileSync(database).equals(bytes), 'the file was changed').toBe(true);
  expect(readdirSync(folder).sort(), 'files appeared next to it').toEqual(listing);
}

describe('plants serve refuses a database it cannot use (exit 2, the file unchanged)', () => {
  it.concurrent('when another process holds a lock on it', async () => {
    const database = await plantsDatabase('locked.db');
    const lock = await holdSqliteLock(database, 'BEGIN EXCLUSIVE');
    try {
      await expectRefusal(database, /^plants: database .*locked\.db is locked by another process\n/);
    } finally {
      await lock.release();
    }
  });

  it.concurrent("when it is another program's SQLite database", async () => {
    const database = path.join(ownFolder('other-program.db'), 'other-program.db');
    const db = new Database(database);
    db.exec("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
    db.close();
    await expectRefusal(database, /some other program/);
  });

  it.concurrent('when it comes from a newer plants', async () => {
    const database = await plantsDatabase('newer.db');
    const db = new Database(database);
    db.pragma('user_version = 99');
    db.close();
    await expectRefusal(database, /schema version 99, newer than this plants knows/);
  });

  it.concurrent.each([
    ['cut to its first 512 bytes', 512],
    ['cut in half', 0.5],
  ])('when it is damaged: %s', async (_what, keep) => {
    const database = await plantsDatabase(`damaged-${String(keep)}.db`);
    const whole = readFileSync(database);
    writeFileSync(database, whole.subarray(0, keep < 1 ? Math.floor(whole.length * keep) : keep));
    await expectRefusal(database, /is damaged|not a SQLite database/);
  });

  it.concurrent('when its folder cannot be written, root included (/proc)', async () => {
    const result = await user.run(['serve', '--port', '0', '--db', '/proc/plants.db', '--token', TOKEN]);
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr);
    expect(result.stderr).toContain('/proc/plants.db');
  });

  it.concurrent('when its folder cannot be written (immutable, or read-only for a user)', async ({ skip }) => {
    const folder = path.join(user.dir, 'sealed');
    mkdirSync(folder);
    const sealed = makeUnwritable(folder);
    if (sealed === undefined) return skip('this machine cannot make a folder unwritable for root');
    try {
      const result = await user.run(['serve', '--port', '0', '--db', path.join(folder, 'plants.db'), '--token', TOKEN]);
      expect(result.code).toBe(2);
      expectOneLineError(result.stderr);
      expect(result.stderr).toContain(path.join(folder, 'plants.db'));
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      sealed.restore();
    }
  });
});

describe('plants serve against stalling and vanishing clients', () => {
  const dbPath = path.join(user.dir, 'clients.db');
  const serve = useServeProcess(['--port', '0', '--db', dbPath, '--token', TOKEN, '--durability', 'normal']);

  it('cuts a client that trickles its headers at the default 10 s limit, serving others meanwhile', async () => {
    const port = Number(new URL(serve.url).port);
    const slow = new RawConnection(port);
    cleanups.push(() => slow.destroy());
    const started = Date.now();
    await slow.write('POST /plants HTTP/1.1\r\nHost: x\r\n');
    const pool = new Pool(serve.url);
    cleanups.push(() => pool.close());
    let sent = 0;
    let servedMeanwhile = 0;
    let header = 0;
    while (!slow.closed && Date.now() - started < 40_000) {
      await slow.write(`X-Slow-${header++}: 1\r\n`).catch(() => {});
      const answer = await pool.request({
        path: '/plants',
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"id":${1_000_000 + sent++},"name":"meanwhile"}`,
      });
      expect(answer.statusCode).toBe(200);
      await answer.body.text();
      if (!slow.closed) servedMeanwhile++;
      await sleep(500);
    }
    const cutAfter = Date.now() - started;
    expect(slow.closed).toBe(true);
    // At the 10 s limit: never before it, and well before the body's 30 s one (the loop sees the
    // cut up to a request and half a second late, more on a loaded machine).
    expect(cutAfter).toBeGreaterThanOrEqual(9_000);
    expect(cutAfter).toBeLessThan(25_000);
    expect((await slow.waitForResponse(0))?.status).toBe(408);
    // Every other request was answered 200 (above), some while the trickling one was still open.
    expect(servedMeanwhile).toBeGreaterThan(0);
  }, 60_000);

  it.runIf(LONG)(
    'cuts a client that trickles its body at the default 30 s limit, storing nothing of it',
    async () => {
      const port = Number(new URL(serve.url).port);
      const body = '{"id":424242,"name":"slowpoke"}';
      const slow = new RawConnection(port);
      cleanups.push(() => slow.destroy());
      const started = Date.now();
      await slow.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      for (let sent = 0; !slow.closed && sent < body.length - 1; sent++) {
        await slow.write(body[sent] ?? '').catch(() => {});
        await sleep(1500);
      }
      expect(slow.closed).toBe(true);
      expect(Date.now() - started).toBeLessThan(35_000);
      expect((await slow.waitForResponse(0))?.status).toBe(408);
      expect(readStoredPlants(dbPath).some((row) => row.id === 424242n)).toBe(false);
    },
    60_000,
  );

  it(
    'stores nothing from a client that goes away at any byte of its request, and keeps serving others',
    async () => {
      const port = Number(new URL(serve.url).port);
      const pool = new Pool(serve.url);
      cleanups.push(() => pool.close());
      let nextId = 5_000_000_000n;
      const cutShort: bigint[] = [];
      const whole = new Map<bigint, string>();
      await fc.assert(
        fc.asyncProperty(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.boolean(),
          fc.constantFrom('close', 'reset'),
          fc.boolean(),
          async (where, complete, how, chunked) => {
            const id = nextId++;
            const name = `cut ${id} ${'🌿'.repeat(Number(id % 7n))}`;
            const body = JSON.stringify({ name }).replace('{', `{"id":${id},`);
            const framing = chunked
              ? `Transfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`
              : `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
            const request = Buffer.from(
              `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n${framing}`,
            );
            const cut = complete ? request.length : Math.floor(where * (request.length - 1));
            const connection = new RawConnection(port);
            await connection.write(request.subarray(0, cut));
            await sleep(5);
            if (how === 'reset') connection.socket.resetAndDestroy();
            else connection.socket.end();
            if (complete) whole.set(id, name);
            else cutShort.push(id);
            // Another client is served meanwhile.
            const other = nextId++;
            const answer = await pool.request({
              path: '/plants',
              method: 'POST',
              headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
              body: `{"id":${other},"name":"other"}`,
            });
            expect(answer.statusCode).toBe(200);
            await answer.body.text();
          },
        ),
        fcOptions(scaled(150, 3000)),
      );
      await sleep(300);
      const stored = new Map(readStoredBytes(dbPath).map((row) => [row.id, row.name.toString('utf8')]));
      expect(
        cutShort.filter((id) => stored.has(id)),
        'stored from a request cut short',
      ).toEqual([]);
      // A request that arrived whole may have been stored before the client went; then whole.
      const kept = [...whole].filter(([id]) => stored.has(id));
      expect(kept.filter(([id, name]) => stored.get(id) !== name)).toEqual([]);
      expect(serve.stderr).not.toContain('internal error');
      expect(serve.stderr.split('\n').filter((line) => / 5\d\d [\d.]+ms$/.test(line))).toEqual([]);
      reportFigures('disconnects', {
        'cut short': cutShort.length,
        'sent whole then gone': whole.size,
        'of those stored': kept.length,
        'stored from cut requests': 0,
      });
    },
    scaled(60_000, 600_000),
  );
});

describe('plants add against servers that fail it', () => {
  const silent = useFixtureServer(() => {});
  let mute: net.Server;
  let muteUrl: string;
  let resetting: net.Server;
  let resettingUrl: string;
  beforeAll(async () => {
    // Accepts connections and never reads a byte.
    mute = net.createServer((socket) => {
      socket.pause();
      socket.on('error', () => {});
    });
    // Answers the headers and part of the body, then resets.
    resetting = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 60\r\n\r\n{"id":1,"na');
        setTimeout(() => socket.resetAndDestroy(), 20);
      });
    });
    for (const server of [mute, resetting])
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    muteUrl = `http://127.0.0.1:${(mute.address() as net.AddressInfo).port}`;
    resettingUrl = `http://127.0.0.1:${(resetting.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const server of [mute, resetting]) {
      server.close();
      (server as net.Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    }
  });

  const env = (url: string) => ({ PLANTS_BASE_URL: url });
  const records = (count: number) =>
    `${Array.from({ length: count }, (_x, i) => `{"id":${700 + i},"name":"r${i}"}`).join('\n')}\n`;

  it.concurrent.each([
    ['a server that accepts and never answers', () => silent.url],
    ['a server that accepts the connection and never reads', () => muteUrl],
  ])(
    '%s: --timeout gives exit 3, with one JSON document under --json, for one plant and for many',
    async (_what, url) => {
      const one = await user.run(['add', '--id', '1', '--name', 'x', '--timeout', '0.5', '--json'], {
        env: env(url()),
      });
      expect(one.code).toBe(3);
      // Sent, and no answer (nor one to reading it back): it may have been added (issue 17, item 8).
      expect(JSON.parse(one.stdout)).toEqual({
        error: 0,
        message: `sent, no answer: plant 1 may or may not have been added (no answer from ${url()} within 0.5 s)`,
        outcome: 'unknown',
      });
      expectOneLineError(one.stderr);

      const many = await user.run(['add', '--file', '-', '--timeout', '0.5', '--retries', '0', '--concurrency', '4'], {
        env: env(url()),
        input: records(50),
      });
      expect(many.code).toBe(3);
      const lines = many.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      // The run stops at the first time-out: the records in flight are reported, in order, each
      // sent with no answer: unknown, never "not sent".
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(16);
      expect(lines.map((line) => line.line)).toEqual(lines.map((_line, index) => index + 1));
      for (const line of lines) expect(line).toMatchObject({ sent: true, outcome: 'unknown', error: { error: 0 } });
      expect(many.stderr).toContain('Added 0 of');
      expect(many.stderr).toContain(`no answer from ${url()} within 0.5 s`);
      expectNoSecret(TOKEN, { one: one.stdout + one.stderr, many: many.stdout + many.stderr });
    },
  );

  it.concurrent('a server that resets in the middle of its answer: exit 3, for one plant and for many', async () => {
    const human = await user.run(['add', '--id', '1', '--name', 'x'], { env: env(resettingUrl) });
    expect(human.code).toBe(3);
    expect(human.stdout).toBe('');
    expect(expectOneLineError(human.stderr)[0]).toContain(`cannot reach ${resettingUrl}`);
    const json = await user.run(['add', '--id', '1', '--name', 'x', '--json'], { env: env(resettingUrl) });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: 0, message: expect.stringContaining(resettingUrl) });

    const many = await user.run(['add', '--file', '-', '--concurrency', '1'], {
      env: env(resettingUrl),
      input: records(5),
    });
    expect(many.code).toBe(3);
    const lines = many.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ line: 1, sent: true, outcome: 'unknown', error: { error: 0 } });
    expect(many.stderr).toContain('Added 0 of');
    expectNoSecret(TOKEN, {
      human: human.stdout + human.stderr,
      json: json.stdout + json.stderr,
      many: many.stdout + many.stderr,
    });
  });
});
