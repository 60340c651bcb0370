import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { expectOneLineError } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess, stopDetachedServer } from '../helpers/serve-process.js';
import { type StoreLocation, storeBackends } from '../helpers/store-backends.js';
import { postPlant, RawConnection, send, waitUntil } from '../server/http-client.js';

// plants serve as the store a test suite runs against: --seed, --allow-reset, --delay, --fault,
// as a user runs them (the built CLI, a child process), on every store serve has.

const TOKEN = 'serve-testing-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const temp = makeTempDir();
const running: ServeProcess[] = [];
const locations: StoreLocation[] = [];

afterEach(async () => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null) await serve.stop('SIGKILL');
  for (const location of locations.splice(0)) await location.remove();
});
afterAll(() => temp.remove());

async function serve(args: readonly string[]): Promise<ServeProcess> {
  const started = await startServeProcess(['--port', '0', '--token', TOKEN, ...args]);
  running.push(started);
  return started;
}

function file(name: string, text: string): string {
  const at = path.join(temp.dir, name);
  writeFileSync(at, text);
  return at;
}

const SEED =
  '{"id":1,"name":"Fern","tag":"herb"}\n{"id":9223372036854775807,"name":"Max"}\n{"id":-9223372036854775808,"name":"Min"}\n';
const SEEDED =
  '[{"id":-9223372036854775808,"name":"Min"},{"id":1,"name":"Fern","tag":"herb"},{"id":9223372036854775807,"name":"Max"}]';

/** GET /plants?limit=1000, the body as it came. */
async function listText(url: string): Promise<string> {
  const answer = await send(`${url}/plants?limit=1000`, { headers: auth });
  expect(answer.status).toBe(200);
  return answer.text;
}

describe('serve --seed', () => {
  it('loads NDJSON before it listens: the first request sees every plant, ids exact; the banner counts them', async () => {
    const server = await serve(['--memory', '--seed', file('seed.ndjson', SEED)]);
    expect(await listText(server.url)).toBe(SEEDED);
    await server.waitForStderr('listening');
    expect(server.stderr).toContain(`seed: ${path.join(temp.dir, 'seed.ndjson')} (3 plants)`);
  });

  it('loads a JSON array too', async () => {
    const array = file('seed.json', `[\n${SEED.trim().split('\n').join(',\n')}\n]\n`);
    const server = await serve(['--memory', '--seed', array]);
    expect(await listText(server.url)).toBe(SEEDED);
  });

  it.each([
    ['bad.ndjson', '{"id":1,"name":"Fern"}\n{"id":2,"name":""}\n', 'line 2: invalid plant: name: must not be empty'],
    ['bad.json', '[\n {"id":1,"name":"a"},\n {"id":1.5,"name":"b"}\n]\n', 'line 3 (array index 1): invalid plant: id:'],
    ['broken.ndjson', '{"id":1,"name":"Fern"}\n{"id":2\n', 'line 2: not valid JSON'],
  ])(
    '%s: exit 2, one line naming the file and where; nothing listens, no database file is made',
    async (name, text, why) => {
      const seed = file(name, text);
      const db = path.join(temp.dir, `never-${name}.db`);
      const result = await runCli(['serve', '--port', '0', '--db', db, '--token', TOKEN, '--seed', seed]);
      expect(result.code, result.stderr).toBe(2);
      const [line] = expectOneLineError(result.stderr);
      expect(line).toMatch(`plants: --seed ${seed}: ${why}`);
      expect(result.stdout).toBe('');
      expect(existsSync(db)).toBe(false);
    },
  );

  it('a missing or unreadable seed file: exit 2, in the words of add --file', async () => {
    const missing = path.join(temp.dir, 'missing.ndjson');
    const gone = await runCli(['serve', '--port', '0', '--memory', '--token', TOKEN, '--seed', missing]);
    expect(gone.code).toBe(2);
    expect(expectOneLineError(gone.stderr)).toEqual([`plants: --seed ${missing}: cannot read it: no such file`]);
    const folder = await runCli(['serve', '--port', '0', '--memory', '--token', TOKEN, '--seed', temp.dir]);
    expect(folder.code).toBe(2);
    expect(expectOneLineError(folder.stderr)).toEqual([`plants: --seed ${temp.dir}: cannot read it: it is a folder`]);
  });

  describe.each(storeBackends())('on a persistent store ($name)', (backend) => {
    it('a plant stored as the seed has it is fine; one stored otherwise stops the start (exit 2), naming the id and both', async () => {
      const location = await backend.create();
      locations.push(location);
      const seed = file(`seed-${backend.name}.ndjson`, SEED);
      const first = await serve(['--database', location.database, '--seed', seed]);
      expect((await postPlant(first.url, TOKEN, '{"id":5,"name":"Ivy"}')).status).toBe(200);
      expect(await first.stop()).toBe(0);

      // The same seed again: started, the seed and what was added since both there.
      const again = await serve(['--database', location.database, '--seed', seed]);
      expect((await location.readPlants()).map((row) => row.id)).toEqual([
        -9223372036854775808n,
        1n,
        5n,
        9223372036854775807n,
      ]);
      expect(await again.stop()).toBe(0);

      const other = file(
        `other-${backend.name}.ndjson`,
        '{"id":77,"name":"New"}\n{"id":1,"name":"Fern","tag":"shade"}\n',
      );
      const result = await runCli([
        'serve',
        '--port',
        '0',
        '--database',
        location.database,
        '--token',
        TOKEN,
        '--seed',
        other,
      ]);
      expect(result.code, result.stderr).toBe(2);
      expect(expectOneLineError(result.stderr)).toEqual([
        `plants: --seed ${other}: line 2: plant 1 is stored already as {"id":1,"name":"Fern","tag":"herb"}, the seed has {"id":1,"name":"Fern","tag":"shade"}; nothing was added`,
      ]);
      expect(result.stdout).toBe('');
      // Nothing of that seed went in.
      expect((await location.readPlants()).map((row) => row.id)).toEqual([
        -9223372036854775808n,
        1n,
        5n,
        9223372036854775807n,
      ]);
    });
  });
});

describe('serve --allow-reset: POST /reset', () => {
  describe.each(storeBackends())('on $name', (backend) => {
    it('puts the store back to exactly its seed, needs the token, and answers the first page of it', async () => {
      const location = await backend.create();
      locations.push(location);
      const server = await serve([
        '--database',
        location.database,
        '--seed',
        file('reset-seed.ndjson', SEED),
        '--allow-reset',
      ]);
      await server.waitForStderr('listening');
      expect(server.stderr).toContain('reset: allowed');
      expect((await postPlant(server.url, TOKEN, '{"id":5,"name":"Ivy"}')).status).toBe(200);
      expect((await send(`${server.url}/plants/1`, { method: 'DELETE', headers: auth })).status).toBe(204);

      const refused = await send(`${server.url}/reset`, { method: 'POST' });
      expect(refused.status).toBe(401);
      expect((await location.readPlants()).map((row) => row.id)).toEqual([
        -9223372036854775808n,
        5n,
        9223372036854775807n,
      ]);

      const reset = await send(`${server.url}/reset`, { method: 'POST', headers: auth });
      expect(reset.status).toBe(200);
      expect(reset.headers['content-type']).toBe('application/json');
      expect(reset.text).toBe(SEEDED);
      expect(await location.readPlants()).toEqual([
        { id: -9223372036854775808n, name: 'Min', tag: null },
        { id: 1n, name: 'Fern', tag: 'herb' },
        { id: 9223372036854775807n, name: 'Max', tag: null },
      ]);
      // The store goes on as usual.
      expect((await postPlant(server.url, TOKEN, '{"id":5,"name":"Ivy"}')).status).toBe(200);
      expect((await postPlant(server.url, TOKEN, '{"id":1,"name":"Fern"}')).status).toBe(409);
    });

    it('no request is answered from a half-reset store: reads during resets see the seed, or the seed and the adds', async () => {
      const location = await backend.create();
      locations.push(location);
      const seedLines = Array.from({ length: 600 }, (_, index) => `{"id":${index},"name":"seed ${index}"}`);
      const server = await serve([
        '--database',
        location.database,
        '--seed',
        file('big-seed.ndjson', `${seedLines.join('\n')}\n`),
        '--allow-reset',
      ]);
      const counts = new Set<number>();
      for (let round = 0; round < 4; round++) {
        const extra = Array.from({ length: 300 }, (_, index) =>
          postPlant(server.url, TOKEN, `{"id":${100_000 + index},"name":"extra"}`),
        );
        expect((await Promise.all(extra)).every((answer) => answer.status === 200)).toBe(true);
        let resetting = true;
        const reset = send(`${server.url}/reset`, { method: 'POST', headers: auth }).finally(() => {
          resetting = false;
        });
        const readers = Array.from({ length: 4 }, async () => {
          do {
            const page = await send(`${server.url}/plants?limit=1000`, { headers: auth });
            counts.add((page.json as unknown[]).length);
          } while (resetting);
        });
        expect((await reset).status).toBe(200);
        await Promise.all(readers);
      }
      for (const count of counts) expect([600, 900]).toContain(count);
      expect(counts).toContain(600);
      expect((await location.readPlants()).length).toBe(600);
    });
  });

  it('without --allow-reset: a 404 in the Error shape that says how to allow it, and nothing changes', async () => {
    const server = await serve(['--memory', '--seed', file('kept.ndjson', SEED)]);
    expect((await postPlant(server.url, TOKEN, '{"id":5,"name":"Ivy"}')).status).toBe(200);
    const refused = await send(`${server.url}/reset`, { method: 'POST', headers: auth });
    expect(refused.status).toBe(404);
    expect(refused.json).toEqual({
      error: 404,
      message: 'reset is off on this server: start plants serve with --allow-reset to allow it',
    });
    expect((await send(`${server.url}/reset`, { method: 'POST' })).status).toBe(401);
    expect(await listText(server.url)).toContain('"id":5');
  });

  it('DELETE /plants stays a 405: a client that drops the id never empties the store', async () => {
    const server = await serve(['--memory', '--allow-reset']);
    expect((await postPlant(server.url, TOKEN, '{"id":5,"name":"Ivy"}')).status).toBe(200);
    expect((await send(`${server.url}/plants`, { method: 'DELETE', headers: auth })).status).toBe(405);
    const reset = await send(`${server.url}/reset`, { method: 'POST', headers: auth });
    expect(reset.status).toBe(200);
    expect(reset.text).toBe('[]');
  });

  it('is described in the served OpenAPI', async () => {
    const server = await serve(['--memory']);
    const document = (await send(`${server.url}/openapi.json`)).json as {
      paths: Record<
        string,
        Record<string, { operationId?: string; summary?: string; responses: Record<string, unknown> }>
      >;
    };
    const reset = document.paths['/reset']?.post;
    expect(reset?.operationId).toBe('resetStore');
    expect(reset?.summary).toEqual(expect.any(String));
    expect(Object.keys(reset?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404']));
  });
});

describe('serve --delay', () => {
  it('delays the plant routes by at least the delay', async () => {
    const server = await serve(['--memory', '--delay', '400']);
    await server.waitForStderr('delay: 400 ms');
    for (const request of [
      () => send(`${server.url}/plants`, { headers: auth }),
      () => postPlant(server.url, TOKEN, '{"id":1,"name":"Fern"}'),
      () => send(`${server.url}/plants/1`, { headers: auth }),
    ]) {
      const started = performance.now();
      expect((await request()).status).toBe(200);
      // A lower bound only: a loaded machine can make it longer, never shorter.
      expect(performance.now() - started).toBeGreaterThanOrEqual(395);
    }
  });

  it('a client that gives up during the delay: its add is not carried out, and the log says 499', async () => {
    const location = await storeBackends()[0]?.create();
    if (location === undefined) throw new Error('no store');
    locations.push(location);
    const server = await serve(['--database', location.database, '--delay', '1500']);
    const connection = new RawConnection(Number(new URL(server.url).port));
    const body = '{"id":1,"name":"Fern"}';
    await connection.write(
      `POST /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(await connection.waitForResponse(300)).toBeUndefined();
    connection.destroy();
    await server.waitForStderr('POST /plants 499');
    // Past the delay, a request that would run would have stored it by the time a later one answers.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await send(`${server.url}/plants`, { headers: auth })).text).toBe('[]');
    expect(await location.readPlants()).toEqual([]);
  });

  it('MIN-MAX: each answer waits at least MIN', async () => {
    const server = await serve(['--memory', '--delay', '300-350']);
    const started = performance.now();
    expect((await send(`${server.url}/plants`, { headers: auth })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it('never delays /healthz, /livez, /readyz, /metrics or /reset', async () => {
    // Ten minutes a plant request: anything delayed would never answer within the test.
    const server = await serve(['--memory', '--delay', '600000', '--metrics', '--allow-reset']);
    const plantRequest = new RawConnection(Number(new URL(server.url).port));
    await plantRequest.write(`GET /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`);
    for (const probe of ['/healthz', '/livez', '/readyz', '/metrics'])
      expect((await send(`${server.url}${probe}`)).status).toBe(200);
    expect((await send(`${server.url}/reset`, { method: 'POST', headers: auth })).status).toBe(200);
    // The plant request is still waiting.
    expect(await plantRequest.waitForResponse(500)).toBeUndefined();
    plantRequest.destroy();
  });
});

describe('serve --fault', () => {
  it('503: answered 503 with Retry-After in the Error shape, nothing stored; the log marks it', async () => {
    const server = await serve(['--memory', '--fault', '503=1']);
    await server.waitForStderr('listening');
    expect(server.stderr).toMatch(
      /faults: 503 100% of plant requests \(--fault-seed \d+ gives the same faults again\)/,
    );
    const answer = await postPlant(server.url, TOKEN, '{"id":1,"name":"Fern"}');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.json).toEqual({ error: 503, message: expect.stringContaining('--fault 503') });
    await server.waitForStderr('POST /plants 503');
    expect(server.stderr).toMatch(/^POST \/plants 503 \d+\.\dms fault=503$/m);
    // Probes are never faulted.
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
    await server.stop();
  });

  describe.each(storeBackends())('on $name', (backend) => {
    it('reset: the add is committed, then the connection is dropped before any answer; the JSON log marks it', async () => {
      const location = await backend.create();
      locations.push(location);
      const server = await serve(['--database', location.database, '--fault', 'reset=1', '--log-format', 'json']);
      const connection = new RawConnection(Number(new URL(server.url).port));
      const body = '{"id":9223372036854775807,"name":"Fern"}';
      await connection.write(
        `POST /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      expect(await connection.waitForClose(10_000)).toBe(true);
      expect(connection.raw).toBe('');
      expect(await location.readPlants()).toEqual([{ id: 9223372036854775807n, name: 'Fern', tag: null }]);
      await waitUntil(() => server.stderr.includes('"fault":"reset"'), 5000, 'the log line');
      const line = server.stderr.split('\n').find((text) => text.includes('"fault":"reset"')) ?? '';
      expect(JSON.parse(line)).toMatchObject({ method: 'POST', path: '/plants', status: 200, fault: 'reset' });
    });
  });

  it('stall: no answer until the client gives up, nothing stored', async () => {
    const location = await storeBackends()[0]?.create();
    if (location === undefined) throw new Error('no store');
    locations.push(location);
    const server = await serve(['--database', location.database, '--fault', 'stall=1']);
    const connection = new RawConnection(Number(new URL(server.url).port));
    const body = '{"id":1,"name":"Fern"}';
    await connection.write(
      `POST /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(await connection.waitForResponse(1500)).toBeUndefined();
    expect(connection.closed).toBe(false);
    connection.destroy();
    await server.waitForStderr('fault=stall');
    expect(server.stderr).toMatch(/^POST \/plants 499 \d+\.\dms fault=stall$/m);
    expect(await location.readPlants()).toEqual([]);
  });

  it('truncate: a 200 whose body is cut short, then the connection closes', async () => {
    const server = await serve(['--memory', '--seed', file('truncate-seed.ndjson', SEED), '--fault', 'truncate=1']);
    const connection = new RawConnection(Number(new URL(server.url).port));
    await connection.write(`GET /plants HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`);
    expect(await connection.waitForClose(10_000)).toBe(true);
    const [head = '', body = ''] = connection.raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain(`content-length: ${SEEDED.length}`);
    expect(body.length).toBeLessThan(SEEDED.length);
    expect(SEEDED.startsWith(body)).toBe(true);
    await server.waitForStderr('fault=truncate');
  });

  it('--fault-seed: the same seed and the same requests meet the same faults; another seed, others', async () => {
    async function faultSequence(seed: string): Promise<string> {
      const server = await serve(['--memory', '--fault', '503=0.4', '--fault', 'truncate=0.2', '--fault-seed', seed]);
      await server.waitForStderr('listening');
      expect(server.stderr).toContain(`--fault-seed ${seed} gives the same faults again`);
      const statuses: string[] = [];
      for (let request = 0; request < 40; request++) {
        try {
          statuses.push(String((await send(`${server.url}/plants`, { headers: auth })).status));
        } catch {
          statuses.push('cut');
        }
      }
      await server.stop();
      return statuses.join(' ');
    }
    const first = await faultSequence('42');
    expect(first).toMatch(/503/);
    expect(first).toMatch(/cut/);
    expect(first).toMatch(/200/);
    expect(await faultSequence('42')).toBe(first);
    expect(await faultSequence('43')).not.toBe(first);
  });
});

describe('with --detach', () => {
  it('the background server reads the seed and takes the faults; a bad seed is its exit 2, passed on', async () => {
    const bad = file('detach-bad.ndjson', '{"id":1,"name":"a"}\n{"id":2}\n');
    const refused = await runCli(['serve', '--port', '0', '--memory', '--token', TOKEN, '--seed', bad, '--detach']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(expectOneLineError(refused.stderr)).toEqual([
      `plants: --seed ${bad}: line 2: invalid plant: name: is required`,
    ]);

    const pidFile = path.join(temp.dir, 'detached.pid');
    const started = await runCli([
      'serve',
      '--port',
      '0',
      '--memory',
      '--token',
      TOKEN,
      '--seed',
      file('detach.ndjson', SEED),
      '--allow-reset',
      '--fault',
      '503=1',
      '--fault-seed',
      '5',
      '--detach',
      '--pid-file',
      pidFile,
    ]);
    expect(started.code, started.stderr).toBe(0);
    const url = started.stdout.trim();
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      expect(started.stderr).toContain(
        'faults: 503 100% of plant requests (--fault-seed 5 gives the same faults again)',
      );
      expect((await send(`${url}/plants`, { headers: auth })).status).toBe(503);
      const reset = await send(`${url}/reset`, { method: 'POST', headers: auth });
      expect(reset.text).toBe(SEEDED);
    } finally {
      await stopDetachedServer(pid);
    }
  });
});

describe('bad values: exit 2, one line naming the flag', () => {
  it.each([
    [['--delay', '-5'], /^plants: --delay -5: /],
    [['--delay', '5-1'], /^plants: --delay 5-1: MIN is more than MAX/],
    [['--fault', '503=1.5'], /^plants: --fault 503=1\.5: RATE must be a fraction/],
    [['--fault', 'nope=0.1'], /^plants: --fault nope=0\.1: no fault kind "nope"/],
    [['--fault', '503'], /^plants: --fault 503: give KIND=RATE/],
    [['--fault', '503=0.6', '--fault', 'reset=0.6'], /^plants: --fault: the rates add up to 1\.2/],
    [['--fault-seed', '7'], /^plants: --fault-seed seeds --fault/],
    [
      ['--fault', '503=0.1', '--fault-seed', 'abc'],
      /^plants: --fault-seed must be a whole number from 0 to 4294967295 \(got "abc"\)$/,
    ],
    [['--fault', '503=0.1', '--fault-seed', '4294967296'], /^plants: --fault-seed must be a whole number/],
  ])('serve %j', async (args, message) => {
    const result = await runCli(['serve', '--port', '0', '--memory', '--token', TOKEN, ...args]);
    expect(result.code, result.stderr).toBe(2);
    const [line] = expectOneLineError(result.stderr);
    expect(line).toMatch(message);
    expect(result.stdout).toBe('');
  });
});
