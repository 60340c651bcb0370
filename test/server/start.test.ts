import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asPlantsError } from '../../src/cli/render/report-error.js';
import { ListenError, ServerOptionsError } from '../../src/server/errors.js';
import type { PlantServerOptions } from '../../src/server/server-options.js';
import { type RunningPlantServer, startPlantServer } from '../../src/server/start.js';
import { SqlitePlantStore } from '../../src/server/stores/sqlite/sqlite-plant-store.js';
import { DatabaseOpenError, StorageFullError } from '../../src/server/stores/store-errors.js';
import { makeTempDir, projectRoot } from '../helpers/cli.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { mountSmallDisk } from '../helpers/small-disk.js';
import { holdSqliteLock } from '../helpers/sqlite-lock.js';
import { readStoredPlants, startStoreServer, TEST_TOKEN } from '../helpers/store-server.js';
import { makeUnwritable } from '../helpers/unwritable.js';
import { parseRawResponses, postPlant, RawConnection, send, sleep, waitUntil } from './http-client.js';

let dir: string;
let removeDir: () => void;
const cleanups: Array<() => unknown> = [];

beforeEach(() => {
  ({ dir, remove: removeDir } = makeTempDir('plants-start-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  removeDir();
});

function options(overrides: Partial<PlantServerOptions> = {}): PlantServerOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    database: path.join(dir, 'plants.db'),
    tokens: [TEST_TOKEN],
    durability: 'full',
    ...overrides,
  };
}

async function start(overrides: Partial<PlantServerOptions> = {}): Promise<RunningPlantServer> {
  const server = await startPlantServer(options(overrides));
  cleanups.push(() => server.close());
  return server;
}

/** The error startPlantServer rejects with, one the CLI ends in exit 2 (the test fails if it starts). */
async function startFailure(overrides: Partial<PlantServerOptions>): Promise<Error> {
  let server: RunningPlantServer | undefined;
  try {
    server = await startPlantServer(options(overrides));
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    expect(asPlantsError(error).exitCode).toBe(2);
    expect((error as Error).message).not.toContain('\n');
    return error as Error;
  }
  await server.close();
  throw new Error('the server started');
}

const plant = (id: number | string, name = `plant ${id}`) => `{"id":${id},"name":"${name}"}`;

/**
 * Sends the head of a POST /plants of `length` bytes with `Expect: 100-continue`, and resolves
 * once the server has answered 100 Continue: the request has reached the app (its token checked)
 * and is in flight, whatever the machine's load; no sleep stands in for that.
 */
async function inFlight(connection: RawConnection, length: number, token = TEST_TOKEN): Promise<void> {
  await connection.write(
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await waitUntil(() => connection.raw.includes('100 Continue'), 10_000, '100 Continue');
}

/** Another process holding a lock on `file` until the test's cleanup; resolves once it holds it. */
async function holdLock(file: string, statement: 'BEGIN EXCLUSIVE' | 'BEGIN IMMEDIATE', wal: boolean): Promise<void> {
  const lock = await holdSqliteLock(file, statement, { wal });
  cleanups.push(() => lock.release());
}

describe('start-up refusals (exit 2, nothing overwritten)', () => {
  it('refuses a database in a folder that does not exist', async () => {
    const database = path.join(dir, 'missing', 'plants.db');
    const error = await startFailure({ database });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toBe(`cannot open database ${database}: the folder ${path.dirname(database)} does not exist`);
  });

  it('refuses a database whose folder is a file', async () => {
    writeFileSync(path.join(dir, 'afile'), 'x');
    const database = path.join(dir, 'afile', 'plants.db');
    const error = await startFailure({ database });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toBe(`cannot open database ${database}: ${path.join(dir, 'afile')} is not a folder`);
  });

  it('refuses a database path that is a folder', async () => {
    const error = await startFailure({ database: dir });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toMatch(/^cannot open database /);
  });

  it('refuses a database in a folder it cannot write', async () => {
    const locked = path.join(dir, 'read-only');
    mkdirSync(locked);
    // Root writes through permission bits: the folder is made immutable for root.
    const sealed = makeUnwritable(locked);
    if (sealed === undefined)
      throw new Error('cannot make a folder unwritable here (chattr +i needs root and e2fsprogs)');
    cleanups.push(() => sealed.restore());
    const error = await startFailure({ database: path.join(locked, 'plants.db') });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(readdirSync(locked)).toEqual([]);
  });

  it('refuses a database in a folder nobody may write, root included (/proc)', async () => {
    const error = await startFailure({ database: '/proc/plants.db' });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toContain('/proc/plants.db');
  });

  it('refuses a file that is not a SQLite database and leaves its bytes unchanged', async () => {
    const database = path.join(dir, 'important.txt');
    const bytes = Buffer.from('Dear diary, today I planted a fern.\n'.repeat(100));
    writeFileSync(database, bytes);
    const error = await startFailure({ database });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toBe(
      `${database} is not a SQLite database; refusing to use it (the file was left unchanged)`,
    );
    expect(readFileSync(database).equals(bytes)).toBe(true);
    expect(readdirSync(dir)).toEqual(['important.txt']);
  });

  it('refuses a database another process holds an exclusive lock on', async () => {
    const database = path.join(dir, 'held.db');
    await holdLock(database, 'BEGIN EXCLUSIVE', false);
    const before = readFileSync(database);
    const error = await startFailure({ database, busyTimeoutMs: 200 });
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect(error.message).toBe(`database ${database} is locked by another process`);
    expect(readFileSync(database).equals(before)).toBe(true);
  });

  it('refuses a WAL database another process is writing to (readers would not block it)', async () => {
    const database = path.join(dir, 'busy.db');
    // A plants database first, so only the lock can be the problem.
    (await startPlantServer(options({ database }))).close();
    await waitUntil(() => !existsSync(`${database}-wal`), 2000, 'the first server to close');
    await holdLock(database, 'BEGIN IMMEDIATE', true);
    const error = await startFailure({ database, busyTimeoutMs: 200 });
    expect(error.message).toBe(`database ${database} is locked by another process`);
  });

  it('refuses a port in use, naming host:port, before it creates the database', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as net.AddressInfo).port;
    const database = path.join(dir, 'plants.db');
    const error = await startFailure({ port, database });
    expect(error).toBeInstanceOf(ListenError);
    expect(error.message).toBe(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('gives the port back when the database cannot be opened', async () => {
    const database = path.join(dir, 'not-a-database');
    writeFileSync(database, 'plain text, not SQLite\n'.repeat(100));
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await startFailure({ port, database });
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it('refuses an address this machine does not have', async () => {
    const error = await startFailure({ host: '192.0.2.1', port: 4010 });
    expect(error).toBeInstanceOf(ListenError);
    expect(error.message).toBe('cannot listen on 192.0.2.1:4010: this machine has no such address');
  });

  it.each([
    [{ tokens: [] }, 'at least one access token is needed'],
    [{ tokens: ['has space'] }, 'an access token is not a bearer token: the token has white space in it'],
    [{ port: 70_000 }, 'port must be a whole number from 0 to 65535 (got 70000)'],
    [{ maxBodyBytes: 0 }, 'maxBodyBytes must be a whole number above 0 (got 0)'],
    [
      { headersTimeoutMs: 5000, requestTimeoutMs: 1000 },
      'headersTimeoutMs (5000) must not be longer than requestTimeoutMs (1000)',
    ],
  ] as Array<[Partial<PlantServerOptions>, string | RegExp]>)(
    'refuses options %o before touching the disk',
    async (bad, message) => {
      const error = await startFailure(bad);
      expect(error).toBeInstanceOf(ServerOptionsError);
      if (typeof message === 'string') expect(error.message).toBe(message);
      else expect(error.message).toMatch(message);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

describe('persistence', () => {
  it('keeps plants across a restart on the same file', async () => {
    const database = path.join(dir, 'plants.db');
    const first = await startPlantServer(options({ database }));
    expect((await postPlant(first.url, TEST_TOKEN, plant('9223372036854775807', 'max'))).status).toBe(200);
    await first.close();

    const second = await start({ database });
    const again = await postPlant(second.url, TEST_TOKEN, plant('9223372036854775807', 'other'));
    expect(again.status).toBe(409);
    await second.close();

    const store = SqlitePlantStore.open(database, { durability: 'full' });
    try {
      expect(await store.page(undefined, 1000)).toEqual([{ id: 9223372036854775807n, name: 'max' }]);
    } finally {
      void store.close();
    }
  });

  it('serves from memory with database :memory:', async () => {
    const server = await start({ database: ':memory:' });
    expect((await postPlant(server.url, TEST_TOKEN, plant(1))).status).toBe(200);
    expect((await postPlant(server.url, TEST_TOKEN, plant(1))).status).toBe(409);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('storage faults', () => {
  const errorOf = (answer: { json: unknown }) => answer.json as { error: number; message: string };

  // A real full disk (a small tmpfs) needs root, as CI has: there it must run, never skip.
  it.runIf(process.getuid?.() === 0 || process.env.CI === 'true')(
    'answers 507 on a full disk, saying so, logs it, stores nothing, and stores again once there is room',
    async () => {
      const disk = mountSmallDisk(2 * 1024 * 1024);
      if (disk === undefined) throw new Error('cannot mount a tmpfs: this test needs root (CI runs as root)');
      cleanups.push(() => disk.remove());
      const internalErrors: unknown[] = [];
      const database = path.join(disk.dir, 'plants.db');
      const server = await start({ database, onInternalError: (error) => internalErrors.push(error) });
      expect((await postPlant(server.url, TEST_TOKEN, plant(1))).status).toBe(200);
      disk.fill();
      const full = await postPlant(server.url, TEST_TOKEN, plant(2, 'x'.repeat(1000)));
      expect(full.status).toBe(507);
      expect(errorOf(full)).toEqual({
        error: 507,
        message: "the server's disk is full: nothing was stored; try again once space is freed",
      });
      expect(internalErrors).toEqual([expect.any(StorageFullError)]);
      disk.free();
      expect((await postPlant(server.url, TEST_TOKEN, plant(3))).status).toBe(200);
      await server.close();
      expect(readStoredPlants(database).map((row) => row.id)).toEqual([1n, 3n]);
    },
    30_000,
  );

  it.each([
    ['deleted', (file: string) => unlinkSync(file)],
    [
      'replaced',
      (file: string) => {
        copyFileSync(file, `${file}.copy`);
        renameSync(`${file}.copy`, file);
      },
    ],
  ])('refuses every write with a 500 that says so once the database file is %s, and logs it', async (_how, change) => {
    const internalErrors: unknown[] = [];
    const database = path.join(dir, 'plants.db');
    const server = await start({ database, onInternalError: (error) => internalErrors.push(error) });
    expect((await postPlant(server.url, TEST_TOKEN, plant(1))).status).toBe(200);
    change(database);
    const message = `the database file ${database} was deleted or replaced while the server ran: nothing is stored until plants serve is restarted`;
    const add = await postPlant(server.url, TEST_TOKEN, plant(2));
    expect(add.status).toBe(500);
    expect(errorOf(add)).toEqual({ error: 500, message });
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const remove = await send(`${server.url}/plants/1`, { method: 'DELETE', headers: auth });
    expect(errorOf(remove)).toEqual({ error: 500, message });
    expect((await send(`${server.url}/readyz`)).status).toBe(503);
    expect(internalErrors.map((error) => (error as Error).message)).toEqual([message, message]);
  });

  it('is safe to run two plants serve on one database file: each id stored once, every 200 kept', async () => {
    const database = path.join(dir, 'shared.db');
    const args = ['--port', '0', '--db', database, '--token', TEST_TOKEN, '--quiet'];
    const first = await startServeProcess(args);
    cleanups.push(() => first.stop('SIGKILL'));
    const second = await startServeProcess(args);
    cleanups.push(() => second.stop('SIGKILL'));
    // Ids 1-120 to the first, 61-180 to the second, at once: 61-120 go to both.
    const sends = [
      ...Array.from({ length: 120 }, (_, index) => [first.url, index + 1] as const),
      ...Array.from({ length: 120 }, (_, index) => [second.url, index + 61] as const),
    ];
    const answers = await Promise.all(
      sends.map(async ([url, id]) => ({ id, status: (await postPlant(url, TEST_TOKEN, plant(id))).status })),
    );
    const acknowledged = answers.filter((answer) => answer.status === 200).map((answer) => BigInt(answer.id));
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    expect(acknowledged.sort((a, b) => (a < b ? -1 : 1))).toEqual(
      Array.from({ length: 180 }, (_, index) => BigInt(index + 1)),
    );
    expect(await first.stop()).toBe(0);
    expect(await second.stop()).toBe(0);
    expect(readStoredPlants(database).map((row) => row.id)).toEqual(acknowledged);
  }, 60_000);
});

describe('graceful close', () => {
  it('stops accepting, lets a request in flight finish and be stored, then closes the database', async () => {
    const database = path.join(dir, 'plants.db');
    const lines: string[] = [];
    const server = await start({ database, log: (line) => lines.push(line) });
    const body = plant(77, 'in flight');
    const connection = new RawConnection(server.port);
    cleanups.push(() => connection.destroy());
    await inFlight(connection, body.length);
    await connection.write(body.slice(0, 10));

    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    // The listening socket is closed at once: a new connection is refused.
    await expect(send(`${server.url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(closed).toBe(false);

    await connection.write(body.slice(10));
    expect(await connection.waitForClose(10_000)).toBe(true);
    const [, answer] = parseRawResponses(connection.raw);
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe('{"id":77,"name":"in flight"}');
    expect(answer?.headers.connection).toBe('close');
    await closing;
    expect(lines).toEqual([expect.stringMatching(/^POST \/plants 200 /)]);
    // Closed cleanly: the WAL was checkpointed into the file and removed.
    expect(existsSync(`${database}-wal`)).toBe(false);
    expect(readStoredPlants(database)).toEqual([{ id: 77n, name: 'in flight', tag: null }]);
  });

  it('does not wait for idle keep-alive connections', async () => {
    const server = await start({ keepAliveTimeoutMs: 60_000 });
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    cleanups.push(() => agent.close());
    const answer = await request(`${server.url}/healthz`, { dispatcher: agent });
    await answer.body.text();
    const closing = server.close();
    // Without closing idle connections this would hang for the 60 s keep-alive.
    await expect(Promise.race([closing.then(() => 'closed'), sleep(20_000).then(() => 'hung')])).resolves.toBe(
      'closed',
    );
  });

  it('cuts a request that does not finish within closeTimeoutMs, and still closes', async () => {
    const server = await start({ closeTimeoutMs: 200 });
    const connection = new RawConnection(server.port);
    cleanups.push(() => connection.destroy());
    await inFlight(connection, 100);
    await connection.write('{"id":');
    await server.close();
    expect(await connection.waitForClose(10_000)).toBe(true);
  });

  it('can be closed twice', async () => {
    const server = await start();
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});

describe('slow and vanishing clients', () => {
  it('cuts a client trickling headers with a 408 while serving another client', async () => {
    const server = await startStoreServer({ headersTimeoutMs: 400, requestTimeoutMs: 800 });
    cleanups.push(() => server.close());
    const slow = new RawConnection(server.port);
    cleanups.push(() => slow.destroy());
    await slow.write('POST /plants HTTP/1.1\r\nHost: x\r\n');
    let trickled = 0;
    // At most 10 s of trickling, against a 0.4 s limit: room for a loaded machine.
    const trickle = (async () => {
      while (!slow.closed && trickled < 100) {
        await sleep(100);
        await slow.write(`X-Slow-${trickled}: 1\r\n`).catch(() => {});
        trickled += 1;
      }
    })();
    // Served meanwhile.
    expect((await postPlant(server.url, server.token, plant(1))).status).toBe(200);
    expect(slow.closed).toBe(false);

    expect(await slow.waitForClose(10_000)).toBe(true);
    await trickle;
    expect(trickled).toBeLessThan(100);
    const answer = await slow.waitForResponse(0);
    expect(answer?.status).toBe(408);
    expect(JSON.parse(answer?.body ?? '')).toEqual({
      error: 408,
      message: 'request timed out: the headers or the body arrived too slowly',
    });
    expect((await postPlant(server.url, server.token, plant(2))).status).toBe(200);
  });

  it('cuts a client trickling its body with a 408 and stores nothing', async () => {
    const server = await startStoreServer({ headersTimeoutMs: 400, requestTimeoutMs: 800 });
    cleanups.push(() => server.close());
    // About 11 s of trickling at most, against a 0.8 s limit: room for a loaded machine.
    const body = plant(5, `slowpoke${'.'.repeat(90)}`);
    const slow = new RawConnection(server.port);
    cleanups.push(() => slow.destroy());
    await slow.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    while (!slow.closed && sent < body.length - 1) {
      await slow.write(body[sent] ?? '').catch(() => {});
      sent += 1;
      await sleep(100);
    }
    expect(await slow.waitForClose(10_000)).toBe(true);
    expect(sent).toBeLessThan(body.length - 1);
    expect((await slow.waitForResponse(0))?.status).toBe(408);
    await waitUntil(() => server.logLines.length > 0, 10_000, 'the log line');
    expect(server.logLines).toEqual([expect.stringMatching(/^POST \/plants 408 /)]);
    expect(readStoredPlants(server.dbPath)).toEqual([]);
  });

  it('stores nothing when the client disconnects in the middle of the body', async () => {
    const server = await startStoreServer();
    cleanups.push(() => server.close());
    const body = plant(6, 'half');
    const connection = new RawConnection(server.port);
    // The JSON is whole, but the declared length says more is coming: the request is incomplete.
    await inFlight(connection, body.length + 10, server.token);
    await connection.write(body);
    connection.destroy();
    await waitUntil(() => server.logLines.length > 0, 10_000, 'the log line');
    expect(server.logLines).toEqual([expect.stringMatching(/^POST \/plants 499 /)]);
    expect(readStoredPlants(server.dbPath)).toEqual([]);
    expect((await postPlant(server.url, server.token, plant(7))).status).toBe(200);
  });
});

describe('TLS', () => {
  const fixtures = path.join(projectRoot, 'test', 'server', 'fixtures');
  const certPath = path.join(fixtures, 'test-tls-cert.pem');
  const keyPath = path.join(fixtures, 'test-tls-key.pem');
  const cert = readFileSync(certPath);
  const key = readFileSync(keyPath);

  async function healthz(url: string): Promise<number> {
    const agent = new Agent({ connect: { ca: cert } });
    try {
      const response = await request(`${url}/healthz`, { dispatcher: agent });
      await response.body.text();
      return response.statusCode;
    } finally {
      await agent.close();
    }
  }

  /** The start of a TLS record that announces a 512-byte ClientHello, which never comes. */
  const partialClientHello = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]);

  it('destroys sockets whose handshake stalls or fails, never answering them in HTTP', async () => {
    const server = await start({ tls: { cert, key }, headersTimeoutMs: 300 });
    const stalled = Array.from({ length: 20 }, () => new RawConnection(server.port));
    const partial = new RawConnection(server.port);
    const plainHttp = new RawConnection(server.port);
    const garbage = new RawConnection(server.port);
    const all = [...stalled, partial, plainHttp, garbage];
    cleanups.push(() => {
      for (const connection of all) connection.destroy();
    });
    await partial.write(partialClientHello);
    await plainHttp.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await garbage.write(Buffer.alloc(64, 0xff));
    // Bounded by the test's own time-out: before the fix the stalled ones were never released.
    const closed = await Promise.all(all.map((connection) => connection.waitForClose(15_000)));
    expect(closed.every(Boolean)).toBe(true);
    for (const connection of all) expect(connection.raw).not.toContain('HTTP/');
    expect(await healthz(server.url)).toBe(200);
  }, 30_000);

  it('plants serve under ulimit -n 128 survives 130 stalled handshakes', async () => {
    const serve = await startServeProcess(
      ['--port', '0', '--memory', '--token', TEST_TOKEN, '--quiet', '--tls-cert', certPath, '--tls-key', keyPath],
      {},
      { fdLimit: 128 },
    );
    cleanups.push(() => serve.stop('SIGKILL'));
    const port = Number(new URL(serve.url).port);
    const stalled = Array.from({ length: 130 }, () => new RawConnection(port));
    cleanups.push(() => {
      for (const connection of stalled) connection.destroy();
    });
    // The serve default handshake time-out is 10 s (that of the headers): every socket goes then.
    const closed = await Promise.all(stalled.map((connection) => connection.waitForClose(40_000)));
    expect(closed.filter((isClosed) => !isClosed)).toHaveLength(0);
    expect(await healthz(serve.url)).toBe(200);
  }, 60_000);

  it('serves HTTPS with the given certificate', async () => {
    const server = await start({ tls: { cert, key } });
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    const agent = new Agent({ connect: { ca: cert } });
    cleanups.push(() => agent.close());
    const response = await request(`${server.url}/plants`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: plant('9007199254740993', 'secure'),
    });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('{"id":9007199254740993,"name":"secure"}');
  });
});
