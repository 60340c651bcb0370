import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FixtureHandler, useFixtureServer } from '../helpers/fixture-server.js';
import { expectNoSecret, expectOneLineError, fcOptions, reportFigures, scaled } from '../helpers/reliability.js';
import { useTempUser } from '../helpers/user.js';
import { INT64_MAX, INT64_MIN, validIdValue } from './arbitraries.js';

/**
 * Property-based fuzzing of `plants add` (the built CLI, a child process per run) against a
 * loopback server answering generated statuses, content types and bodies, delivered whole,
 * chunked, cut short, reset or never. Whatever comes back, the CLI exits with a documented
 * code (the one the README names for that answer), says what happened on one line of stderr
 * (plus indented hints) with no stack trace, never prints the token, and with --json prints
 * exactly one JSON document on stdout.
 */

const TOKEN = `cli-${randomBytes(12).toString('base64url')}`;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const fixture = useFixtureServer();
const user = useTempUser(fixture, { token: TOKEN });

type Delivery = 'whole' | 'chunked' | 'truncated' | 'reset-before' | 'reset-mid-body' | 'stall';

interface Body {
  kind: string;
  text: Buffer;
  /** Strict JSON (by construction), and well-formed UTF-8. */
  json: boolean;
  /** A Plant per the contract (by construction): 'yes', 'no', or 'maybe' for random JSON. */
  plant: 'yes' | 'no' | 'maybe';
}

interface Scripted {
  status: number;
  contentType: string | undefined;
  body: Body;
  delivery: Delivery;
  retryAfter: string | undefined;
  /** Where a truncated or reset body is cut. */
  cutAt: number;
}

/** Text a server may put in a message: anything, terminal control and line breaks included. */
const serverText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  // Terminal control: escapes, bells, carriage returns, C1 controls.
  fc.string({
    unit: fc.constantFrom(
      '\n',
      '\r',
      '\t',
      '\u001b',
      '\u001b[2J',
      '\u0007',
      '\u0000',
      '\u009b',
      '\u2028',
      'a',
      ' ',
      '    at x (y.js:1:1)',
    ),
    maxLength: 12,
  }),
);

const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const jsonBody = (value: unknown, plant: Body['plant'], kind: string): Body => ({
  kind,
  text: Buffer.from(JSON.stringify(value), 'utf8'),
  json: true,
  plant,
});

const HUGE = Buffer.from(`{"id":1,"name":"${'x'.repeat(2 * MAX_RESPONSE_BYTES)}"}`);

const body: fc.Arbitrary<Body> = fc.oneof(
  // Plants, as a store would answer: ids at and past the int64 edges, any name and tag.
  {
    weight: 5,
    arbitrary: fc
      .record({
        id: fc.option(validIdValue, { freq: 8 }),
        name: anyText,
        tag: fc.option(anyText, { freq: 2 }),
      })
      .map(({ id, name, tag }) => {
        const parts = [id === null ? '' : `"id":${id},`, `"name":${JSON.stringify(name)}`];
        if (tag !== null) parts.push(`,"tag":${JSON.stringify(tag)}`);
        return { kind: 'Plant', text: Buffer.from(`{${parts.join('')}}`), json: true, plant: 'yes' } as Body;
      }),
  },
  fc
    .oneof(
      fc.bigInt(INT64_MAX + 1n, 2n ** 100n),
      fc.bigInt(-(2n ** 100n), INT64_MIN - 1n),
      fc.constantFrom(9223372036854775808n, -9223372036854775809n),
    )
    .map(
      (id) =>
        ({
          kind: 'Plant with a huge id',
          text: Buffer.from(`{"id":${id},"name":"x"}`),
          json: true,
          plant: 'no',
        }) as Body,
    ),
  fc
    .constantFrom(
      '{"id":1.5,"name":"x"}',
      '{"id":"1","name":"x"}',
      '{"id":1}',
      '{"id":1,"name":7}',
      '{"id":1,"name":"x","tag":null}',
      '{"id":1e3,"name":"x"}',
      '{"id":1,"name":"\\ud800"}',
      `{"id":1,"name":"${'n'.repeat(1025)}"}`,
    )
    .map((text) => ({ kind: 'not quite a Plant', text: Buffer.from(text), json: true, plant: 'no' }) as Body),
  fc
    .record({ error: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer()), message: serverText })
    .map((value) => jsonBody(value, 'no', 'Error')),
  fc
    .record(
      {
        type: fc.constantFrom('about:blank', 'https://example.com/probs/x'),
        title: serverText,
        status: fc.integer(),
        detail: serverText,
      },
      { requiredKeys: [] },
    )
    .map((value) => jsonBody(value, 'no', 'problem')),
  fc.jsonValue({ maxDepth: 3 }).map((value) => jsonBody(value, 'maybe', 'random JSON')),
  fc
    .constantFrom(
      '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
      '<html>\n<body>\n<pre>Traceback (most recent call last):\n  File "app.py", line 1\n    at Object.<anonymous> (/srv/app.js:1:1)\n</pre></body></html>',
      'Internal Server Error',
      'OK',
      'null',
    )
    .map((text) => ({ kind: 'text', text: Buffer.from(text), json: text === 'null', plant: 'no' }) as Body),
  fc.constant<Body>({ kind: 'empty', text: Buffer.alloc(0), json: false, plant: 'no' }),
  fc.constant<Body>({ kind: 'huge (2 MiB)', text: HUGE, json: true, plant: 'no' }),
  fc
    .uint8Array({ maxLength: 300 })
    .map((bytes) => ({ kind: 'random bytes', text: Buffer.from(bytes), json: false, plant: 'maybe' }) as Body),
  fc.tuple(validIdValue, fc.integer({ min: 1, max: 15 })).map(([id, cut]) => {
    const whole = `{"id":${id},"name":"truncated"}`;
    return {
      kind: 'truncated JSON',
      text: Buffer.from(whole.slice(0, whole.length - cut)),
      json: false,
      plant: 'no',
    } as Body;
  }),
);

/** Bodies print in a counterexample as their kind and first bytes. */
const printableBody: fc.Arbitrary<Body> = body.map((value) =>
  Object.assign(value, {
    [fc.toStringMethod]: () =>
      `${value.kind}: ${JSON.stringify(value.text.subarray(0, 200).toString('utf8'))}${value.text.length > 200 ? ` (${value.text.length} bytes)` : ''}`,
  }),
);

const status = fc.oneof(
  { weight: 4, arbitrary: fc.constant(200) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(201, 204, 301, 302, 400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 502, 503, 504),
  },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/problem+json',
  'application/vnd.plants+json',
  'text/html; charset=utf-8',
  'text/plain',
  'application/octet-stream',
  undefined,
  'x',
);

const scripted: fc.Arbitrary<Scripted> = fc.record({
  status,
  contentType,
  body: printableBody,
  delivery: fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom<Delivery>('whole', 'chunked') },
    { weight: 3, arbitrary: fc.constantFrom<Delivery>('truncated', 'reset-before', 'reset-mid-body') },
    { weight: 1, arbitrary: fc.constant<Delivery>('stall') },
  ),
  retryAfter: fc.option(fc.constantFrom('0', '3600', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT'), { freq: 3 }),
  cutAt: fc.nat(),
});

const invocation = fc.record({
  id: validIdValue,
  json: fc.boolean(),
  retries: fc.constantFrom(0, 0, 1),
});

/** How the fixture answers: exactly as scripted, including the broken ways. */
function handlerFor(script: Scripted): FixtureHandler {
  return (_request, response) => {
    const { body: answer, delivery } = script;
    const headers: Record<string, string | number> = {};
    if (script.contentType !== undefined) headers['content-type'] = script.contentType;
    if (script.retryAfter !== undefined) headers['retry-after'] = script.retryAfter;
    const socket = response.socket;
    switch (delivery) {
      case 'stall':
        return;
      case 'reset-before':
        socket?.resetAndDestroy();
        return;
      case 'whole':
        // 204 and 304 have no body, so no Content-Length either (node drops the body itself).
        if (script.status !== 204 && script.status !== 304) headers['content-length'] = answer.text.length;
        response.writeHead(script.status, headers);
        response.end(answer.text);
        return;
      case 'chunked': {
        response.writeHead(script.status, headers);
        const half = Math.floor(answer.text.length / 2);
        response.write(answer.text.subarray(0, half));
        response.end(answer.text.subarray(half));
        return;
      }
      case 'truncated': {
        // Declares more than it sends, then closes: the body never completes.
        const cut = answer.text.length === 0 ? 0 : script.cutAt % answer.text.length;
        response.writeHead(script.status, { ...headers, 'content-length': answer.text.length + 10 });
        response.write(answer.text.subarray(0, cut), () => socket?.destroy());
        return;
      }
      case 'reset-mid-body': {
        const cut = answer.text.length === 0 ? 0 : script.cutAt % answer.text.length;
        response.writeHead(script.status, headers);
        response.write(answer.text.subarray(0, cut), () => socket?.resetAndDestroy());
        return;
      }
    }
  };
}

function isJsonType(type: string | undefined): boolean {
  const media = (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return media === 'application/json' || media.endsWith('+json');
}

/** The exit codes the README allows for this answer: the one it names, or two where it is open. */
function expectedExitCodes(script: Scripted): number[] {
  // No whole answer: the connection dropped, was reset, or timed out; unless the cut comes after
  // the client's 1 MiB read limit, where it stops reading first and judges what it has.
  const cut = script.body.text.length === 0 ? 0 : script.cutAt % script.body.text.length;
  const cutPastLimit =
    (script.delivery === 'truncated' || script.delivery === 'reset-mid-body') && cut > MAX_RESPONSE_BYTES;
  if (script.delivery !== 'whole' && script.delivery !== 'chunked' && !cutPastLimit) return [3];
  // A reset makes the client's kernel throw away what the client had not read yet, however much
  // was sent before it (seen: 1.23 MiB sent, then a reset, exit 3). So past the limit the reset
  // may still win: exit 3, or what the answer says when the client read past the limit in time.
  // A plain close (truncated) loses nothing, so that one is judged by the answer only.
  const judged = exitCodesForAnswer(script);
  return script.delivery === 'reset-mid-body' ? [...judged, 3] : judged;
}

/** The exit codes for an answer the client has read (all of it, or up to its read limit). */
function exitCodesForAnswer(script: Scripted): number[] {
  if (script.status === 401 || script.status === 403) return [4];
  // 204 and 304 carry no body, whatever the server wrote.
  const bodyArrives = script.status !== 204 && script.status !== 304;
  if (script.status === 200 || script.status === 201) {
    const plantShaped = bodyArrives && isJsonType(script.contentType) && script.body.text.length <= MAX_RESPONSE_BYTES;
    if (plantShaped && script.body.plant === 'yes') return [0];
    if (plantShaped && script.body.plant === 'maybe') return [0, 1];
    return [1];
  }
  return [1];
}

const figures = { runs: 0, byExit: new Map<number, number>(), deliveries: new Map<string, number>() };

async function runOnce(script: Scripted, call: { id: bigint; json: boolean; retries: number }): Promise<void> {
  fixture.requests.length = 0;
  fixture.respond(handlerFor(script));
  const args = ['add', '--id', `${call.id}`, '--name', 'Fern', '--retries', `${call.retries}`, '--timeout', '0.5'];
  if (call.json) args.push('--json');
  const result = await user.run(args, { timeoutMs: 20_000 });
  figures.runs++;
  figures.byExit.set(result.code ?? -1, (figures.byExit.get(result.code ?? -1) ?? 0) + 1);
  figures.deliveries.set(script.delivery, (figures.deliveries.get(script.delivery) ?? 0) + 1);
  const what = `${script.status} ${script.contentType ?? '(no type)'} ${script.body.kind} ${script.delivery}${call.json ? ' --json' : ''}: exit ${result.code}, stdout ${JSON.stringify(result.stdout.slice(0, 300))}, stderr ${JSON.stringify(result.stderr.slice(0, 300))}`;

  // It asked: the token went to the server, and the id digit for digit.
  expect(fixture.requests.length, what).toBeGreaterThanOrEqual(1);
  expect(fixture.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  expect(fixture.requests[0]?.body).toBe(`{"id":${call.id},"name":"Fern"}`);

  expect(result.signal, what).toBeNull();
  expect([0, 1, 2, 3, 4], what).toContain(result.code);
  expect(expectedExitCodes(script), what).toContain(result.code);
  expectNoSecret(TOKEN, { stdout: result.stdout, stderr: result.stderr });

  if (result.code === 0) expect(result.stderr, what).toBe('');
  else expectOneLineError(result.stderr);
  // Control characters from the server are shown as escapes, never sent to the terminal.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  expect(result.stderr, what).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);

  if (!call.json) {
    if (result.code !== 0) expect(result.stdout, what).toBe('');
    return;
  }
  // --json: exactly one JSON document, whatever happened.
  expect(result.stdout.endsWith('\n'), what).toBe(true);
  let document: unknown;
  expect(() => {
    document = JSON.parse(result.stdout);
  }, what).not.toThrow();
  const sentText = script.body.text.toString('utf8').trim();
  if (result.code === 0) {
    expect(result.stdout.trim(), what).toBe(sentText);
  } else if (result.code === 3) {
    expect(document, what).toMatchObject({ error: 0, message: expect.any(String) });
  } else if (
    script.body.json &&
    isJsonType(script.contentType) &&
    script.status !== 200 &&
    script.status !== 201 &&
    script.status !== 204 &&
    script.status !== 304 &&
    script.body.text.length <= MAX_RESPONSE_BYTES
  ) {
    // The server's own JSON (an Error, a problem, anything), as it came.
    expect(result.stdout.trim(), what).toBe(sentText);
  } else if (!script.body.json || !isJsonType(script.contentType)) {
    // Not JSON: an Error record made from the status.
    expect(document, what).toMatchObject({ error: script.status, message: expect.any(String) });
  }
}

describe('plants add against generated answers', () => {
  it(
    'exits with the documented code, one line on stderr, and one JSON document with --json',
    async () => {
      await fc.assert(fc.asyncProperty(scripted, invocation, runOnce), fcOptions(scaled(40, 400)));
      reportFigures('client fuzz', {
        'cli runs': figures.runs,
        exits: [...figures.byExit]
          .sort(([a], [b]) => a - b)
          .map(([code, count]) => `${code}:${count}`)
          .join(','),
        deliveries: [...figures.deliveries].map(([kind, count]) => `${kind}:${count}`).join(','),
      });
    },
    scaled(120_000, 900_000),
  );
});
