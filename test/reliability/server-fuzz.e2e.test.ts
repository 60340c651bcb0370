import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../src/schema/exact-json.js';
import { expectNoSecret, fcOptions, readStoredBytes, reportFigures, scaled } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { runSql, type StoreBackend, type StoreLocation, storeBackends } from '../helpers/store-backends.js';
import {
  deepBody,
  type ExpectedPlant,
  type GeneratedBody,
  longTextBody,
  MAX_BODY_BYTES,
  newPlantLikeBody,
  notAnObjectBody,
  sizedBody,
} from './arbitraries.js';

/**
 * Property-based fuzzing of `plants serve` (the built CLI, as a child process) over HTTP:
 * thousands of generated bodies and headers. Every answer must be a 200 or an Error-shaped 4xx,
 * exactly the one the contract names when it names one; the process must live; and the store
 * must hold exactly the plants that got a 200, byte for byte. On each store (SQLite, PostgreSQL).
 */

const TOKEN = `fuzz-${randomBytes(12).toString('base64url')}`;

interface HeaderCase {
  label: string;
  headers: Record<string, string>;
  /** undefined: the headers are fine; else the status they alone must cause. */
  status: 401 | 415 | undefined;
}

const goodAuth = `Bearer ${TOKEN}`;
const headerCase: fc.Arbitrary<HeaderCase> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/json;charset="UTF-8"',
        'application/json; charset=utf8',
      )
      .chain((type) =>
        fc.constantFrom(goodAuth, `bearer ${TOKEN}`, `BEARER ${TOKEN}`).map(
          (auth): HeaderCase => ({
            label: `auth ok, ${type}`,
            headers: { authorization: auth, 'content-type': type },
            status: undefined,
          }),
        ),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        `Bearer ${TOKEN.toUpperCase()}`,
        `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
        `Token ${TOKEN}`,
        `${TOKEN}`,
        'Bearer wrong-token',
        `Bearer ${'a'.repeat(4000)}`,
        'Bearer ä',
      )
      .map(
        (auth): HeaderCase => ({
          label: `auth ${auth === undefined ? 'missing' : JSON.stringify(auth.slice(0, 30))}`,
          headers:
            auth === undefined
              ? { 'content-type': 'application/json' }
              : { authorization: auth, 'content-type': 'application/json' },
          status: 401,
        }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        undefined,
        '',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/jsonx',
        'application/problem+json',
        'multipart/form-data; boundary=x',
        'json',
      )
      .map(
        (type): HeaderCase => ({
          label: `content-type ${JSON.stringify(type)}`,
          headers: type === undefined ? { authorization: goodAuth } : { authorization: goodAuth, 'content-type': type },
          status: 415,
        }),
      ),
  },
);

/** How the body goes: with a Content-Length, or chunked in pieces of these sizes. */
const transfer = fc.oneof(
  { weight: 4, arbitrary: fc.constant<number[] | undefined>(undefined) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 6 }) },
);

function pieces(body: Buffer, sizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let index = 0; at < body.length; index++) {
    const size = sizes[index % sizes.length] ?? 1;
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

interface Answer {
  status: number;
  contentType: string;
  wwwAuthenticate: string | undefined;
  text: string;
}

/**
 * The 200 body, read without the code under test: the id's digits straight from the text (no
 * rounding), name and tag with JSON.parse (strings are exact).
 */
function readPlantAnswer(text: string): ExpectedPlant {
  const digits = /^\{"id":(-?\d+),"name":/.exec(text);
  expect(digits, `a 200 body starts with the id: ${text.slice(0, 200)}`).not.toBeNull();
  const parsed = JSON.parse(text) as { name: unknown; tag?: unknown };
  expect(Object.keys(parsed).sort()).toEqual(parsed.tag === undefined ? ['id', 'name'] : ['id', 'name', 'tag']);
  expect(typeof parsed.name).toBe('string');
  const plant: ExpectedPlant = { id: BigInt(digits?.[1] ?? 'x'), name: parsed.name as string };
  if (parsed.tag !== undefined) {
    expect(typeof parsed.tag).toBe('string');
    plant.tag = parsed.tag as string;
  }
  return plant;
}

function expectErrorShape(answer: Answer): { error: number; message: string } {
  const parsed = JSON.parse(answer.text) as Record<string, unknown>;
  // A 409 carries the plant stored under the id besides (README, OpenAPI: Conflict).
  const keys = answer.status === 409 ? ['error', 'message', 'plant'] : ['error', 'message'];
  expect(Object.keys(parsed).sort(), answer.text.slice(0, 300)).toEqual(keys);
  expect(parsed.error).toBe(answer.status);
  expect(typeof parsed.message).toBe('string');
  return parsed as { error: number; message: string };
}

const runs = (ci: number, long: number) => fcOptions(scaled(ci, long));
const timeout = scaled(90_000, 900_000);

/** The plants table as raw bytes (name and tag as stored), by id: what byte for byte is checked against. */
async function readBytes(
  backend: StoreBackend,
  location: StoreLocation,
): Promise<Array<{ id: bigint; name: Buffer; tag: Buffer | null }>> {
  if (backend.name === 'sqlite') return readStoredBytes(location.database);
  // PostgreSQL keeps name and tag as bytea: the UTF-8 bytes plants serve wrote, read as they are.
  const rows = await runSql<{ id: string; name: Buffer; tag: Buffer | null }>(
    location.database,
    'SELECT id::text AS id, name, tag FROM plants ORDER BY plants.id',
  );
  return rows.map((row) => ({ id: BigInt(row.id), name: row.name, tag: row.tag }));
}

describe.each(storeBackends())('plants serve on $name under generated input', (backend) => {
  let location: StoreLocation;
  let serve: ServeProcess;
  let pool: Pool;
  /** What the store must hold: every plant answered 200, by id. */
  const model = new Map<bigint, ExpectedPlant>();
  const statuses = new Map<number, number>();
  let requests = 0;
  /** Requests the contract says must be refused (bad body, token or content type). */
  let badInputs = 0;
  let previous = 'none';

  beforeAll(async () => {
    location = await backend.create();
    // durability normal (SQLite): the same code path, without an fsync for each of thousands of
    // requests. PostgreSQL commits as its server is set up to (serve refuses --durability there).
    const durability = backend.name === 'postgres' ? [] : ['--durability', 'normal'];
    serve = await startServeProcess(['--port', '0', '--database', location.database, '--token', TOKEN, ...durability]);
    pool = new Pool(serve.url, { connections: 1, pipelining: 1 });
  });

  afterAll(async () => {
    await pool?.destroy();
    if (serve !== undefined && serve.child.exitCode === null) await serve.stop('SIGKILL');
    await location?.remove();
  });

  async function post(body: Buffer, headers: Record<string, string>, chunks: number[] | undefined): Promise<Answer> {
    const response = await pool.request({
      path: '/plants',
      method: 'POST',
      headers,
      body: chunks === undefined ? body : Readable.from(pieces(body, chunks)),
    });
    const text = await response.body.text();
    requests++;
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    return {
      status: response.statusCode,
      contentType: header('content-type') ?? '',
      wwwAuthenticate: header('www-authenticate'),
      text,
    };
  }

  /** Sends one generated request and checks the answer against the contract and the model. */
  async function check(generated: GeneratedBody, headers: HeaderCase, chunks: number[] | undefined): Promise<void> {
    const { body, verdict } = generated;
    const what = `${generated.label} (${body.length} bytes, ${headers.label}, ${chunks === undefined ? 'length' : 'chunked'})`;
    const expected: number | undefined =
      headers.status ??
      (body.length > MAX_BODY_BYTES
        ? 413
        : verdict.kind === 'valid'
          ? model.has(verdict.plant.id)
            ? 409
            : 200
          : verdict.kind === 'invalid'
            ? 400
            : undefined);
    if (expected !== undefined && expected !== 200 && expected !== 409) badInputs++;

    let answer: Answer;
    try {
      answer = await post(body, headers.headers, chunks);
    } catch (error) {
      // A failure to get an answer at all: say what was sent, and what went before on the connection.
      const log = serve.stderr.trimEnd().split('\n').slice(-3).join(' | ');
      throw new Error(`no answer to ${what}; the request before was ${previous}; the server's log ends: ${log}`, {
        cause: error,
      });
    }
    previous = `${what} -> ${answer.status}`;

    expect(answer.status, `never a 5xx: ${what}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
    expect(answer.contentType, what).toBe('application/json');
    expectNoSecret(TOKEN, { 'a response body': answer.text });
    if (expected !== undefined) {
      expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(expected);
    } else {
      expect([200, 400, 409], `${what}: ${answer.text.slice(0, 300)}`).toContain(answer.status);
    }

    if (answer.status === 200) {
      const stored = readPlantAnswer(answer.text);
      // Into the model before anything else is checked, so that it stays true to the store even
      // when a check below fails (and fast-check goes on to shrink against the same server).
      const first = !model.has(stored.id);
      model.set(stored.id, stored);
      expect(first, `a second 200 for id ${stored.id}`).toBe(true);
      if (verdict.kind === 'valid' || (verdict.kind === 'either' && verdict.plant !== undefined)) {
        expect(stored, what).toEqual(verdict.plant);
      } else {
        // Unspecified input that the server took: it must have taken exactly what was sent.
        const sent = parseJsonExact(body.toString('utf8').replace(/^\ufeff/, '')) as Record<string, unknown>;
        expect(BigInt(sent.id as bigint)).toBe(stored.id);
        expect(stored.name).toBe(sent.name);
        expect(stored.tag).toBe(sent.tag);
      }
      return;
    }
    const error = expectErrorShape(answer);
    if (answer.status === 401) expect(answer.wwwAuthenticate).toMatch(/^Bearer realm="plants"/);
    if (answer.status === 409 && verdict.kind === 'valid') {
      // The message names the id digit for digit.
      expect(error.message).toBe(`a plant with id ${verdict.plant.id} already exists`);
      // And the plant the model holds for it, the id digit for digit.
      const carried = /,"plant":(\{.*\})\}$/s.exec(answer.text)?.[1];
      expect(carried, answer.text).toBeDefined();
      if (model.has(verdict.plant.id)) {
        expect(readPlantAnswer(carried as string), answer.text).toEqual(model.get(verdict.plant.id));
      }
    }
  }

  it(
    'answers NewPlant-like objects (every field varied) as the contract says',
    async () => {
      await fc.assert(fc.asyncProperty(newPlantLikeBody, headerCase, transfer, check), runs(3000, 100_000));
    },
    timeout,
  );

  it(
    'answers random bytes, random JSON, broken JSON and bad UTF-8 with a 4xx Error or a 200',
    async () => {
      await fc.assert(fc.asyncProperty(notAnObjectBody, headerCase, transfer, check), runs(1000, 30_000));
    },
    timeout,
  );

  it(
    'answers deep nesting, bodies around 64 KiB and over-long names without a 5xx',
    async () => {
      const body = fc.oneof(deepBody, sizedBody, longTextBody);
      await fc.assert(fc.asyncProperty(body, headerCase, transfer, check), runs(300, 5000));
    },
    timeout,
  );

  it('is still alive and healthy, and holds exactly the plants answered 200, byte for byte', async () => {
    const health = await pool.request({ path: '/healthz', method: 'GET' });
    expect(health.statusCode).toBe(200);
    expect(await health.body.text()).toBe('{"status":"ok"}');
    expect(serve.child.exitCode).toBeNull();
    expect(serve.child.signalCode).toBeNull();

    const stored = await readBytes(backend, location);
    const expected = [...model.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(stored.map((row) => row.id)).toEqual(expected.map((plant) => plant.id));
    for (const [index, row] of stored.entries()) {
      const plant = expected[index] as ExpectedPlant;
      expect(row.name.equals(Buffer.from(plant.name, 'utf8')), `name of ${row.id}`).toBe(true);
      if (plant.tag === undefined) expect(row.tag, `tag of ${row.id}`).toBeNull();
      else expect(row.tag?.equals(Buffer.from(plant.tag, 'utf8')), `tag of ${row.id}`).toBe(true);
    }

    // One log line per request (the /healthz probe above is not logged), none of them a 5xx or
    // an internal error, never the token.
    const logLines = () => serve.stderr.split('\n').filter((line) => /^(GET|POST) \/\S* \d{3} /.test(line));
    const deadline = Date.now() + 15_000;
    while (logLines().length < requests && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(logLines()).toHaveLength(requests);
    expect(logLines().filter((line) => / 5\d\d /.test(line))).toEqual([]);
    expect(serve.stderr).not.toContain('internal error');
    expectNoSecret(TOKEN, { 'serve stdout': serve.stdout, 'serve stderr (banner and request log)': serve.stderr });

    reportFigures(`server fuzz on ${backend.name}`, {
      requests,
      'bad inputs tried': badInputs,
      'plants checked': stored.length,
      statuses: [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}:${count}`)
        .join(','),
      lost: expected.length - stored.length,
    });
  });
});
