import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../../src/server/page/page-headers.js';
import { type StoreServer, startStoreServer } from '../../helpers/store-server.js';
import { postPlant, send } from '../http-client.js';

// The page's endpoints against the real server over loopback: the files and their headers, the
// journal, the event stream, the rates, and the controls (auth, the --allow-reset guard, 400s).

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

function putControls(server: StoreServer, body: string, headers: Record<string, string> = {}) {
  return send(`${server.url}/_serve/controls`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/json', ...auth(server.token), ...headers },
  });
}

describe('the page of plants serve', () => {
  let server: StoreServer;
  let readOnly: StoreServer;
  let withCors: StoreServer;
  beforeAll(async () => {
    server = await startStoreServer({ allowReset: true });
    readOnly = await startStoreServer({
      faults: [{ kind: '503', rate: 0.25 }],
      faultSeed: 7,
      delay: { minMs: 1, maxMs: 2 },
    });
    withCors = await startStoreServer({ corsOrigins: ['http://localhost:5173'] });
  });
  afterAll(async () => {
    await server?.close();
    await readOnly?.close();
    await withCors?.close();
  });

  it.each([
    ['/_serve/', 'text/html; charset=utf-8', '<title>plants serve</title>'],
    ['/_serve/page.js', 'text/javascript; charset=utf-8', 'TOKEN_KEY'],
    ['/_serve/page.css', 'text/css; charset=utf-8', ':root'],
    ['/_serve/icon.svg', 'image/svg+xml', '<svg'],
  ])('serves %s without a token, with a strict CSP, nosniff and no framing', async (path, type, text) => {
    const answer = await send(`${server.url}${path}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(type);
    expect(answer.text).toContain(text);
    expect(answer.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).toContain("frame-ancestors 'none'");
    expect(PAGE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
  });

  it('sends the page gzipped to a client that takes gzip, and as it is otherwise', async () => {
    const { gunzipSync } = await import('node:zlib');
    const plain = await send(`${server.url}/_serve/page.js`, { headers: { 'accept-encoding': 'gzip;q=0, br' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await request(`${server.url}/_serve/page.js`, { headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    const body = Buffer.from(await zipped.body.arrayBuffer());
    expect(Number(zipped.headers['content-length'])).toBe(body.length);
    expect(gunzipSync(body).toString('utf8')).toBe(plain.text);
  });

  it('sends /_serve on to /_serve/', async () => {
    const answer = await send(`${server.url}/_serve`);
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe('/_serve/');
  });

  it('has no inline script or style and names no other origin in its markup', async () => {
    const html = (await send(`${server.url}/_serve/`)).text;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\son[a-z]+=|style=|<style/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('leaves / and every store route as they were', async () => {
    const root = await send(`${server.url}/`, { headers: auth(server.token) });
    expect(root.status).toBe(404);
    expect(root.json).toEqual({ error: 404, message: 'no such path: /' });
    const list = await send(`${server.url}/plants`, { headers: auth(server.token) });
    expect(list.headers['content-security-policy']).toBeUndefined();
  });

  it.each(['/_serve/journal', '/_serve/events', '/_serve/rates', '/_serve/controls'])(
    'answers %s with 401 and the store’s message without a good token',
    async (path) => {
      const none = await send(`${server.url}${path}`);
      expect(none.status).toBe(401);
      expect(none.json).toEqual({ error: 401, message: 'missing bearer token: send Authorization: Bearer <token>' });
      expect(none.headers['content-security-policy']).toBe(PAGE_CSP);
      const wrong = await send(`${server.url}${path}`, { headers: auth('wrong-token-0123456789abcdef') });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toEqual({ error: 401, message: 'invalid bearer token' });
    },
  );

  it('journals each request (not the page’s own), readable as JSON, after a seq too', async () => {
    const before = (await send(`${server.url}/_serve/journal`, { headers: auth(server.token) })).json as {
      lastSeq: bigint;
    };
    const added = await postPlant(server.url, server.token, '{"id":9223372036854775807,"name":"Oak"}', {
      'x-request-id': 'journal-test-1',
    });
    expect(added.status).toBe(200);
    await send(`${server.url}/healthz`);
    const answer = await send(`${server.url}/_serve/journal?after=${before.lastSeq}`, { headers: auth(server.token) });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    const journal = JSON.parse(answer.text);
    expect(journal).toMatchObject({ store: 'sqlite', maxEntries: 1000, maxBytes: 262144, dropped: 0 });
    expect(journal.instance).toMatch(/:\d+$/);
    expect(journal.requests).toHaveLength(1);
    expect(journal.requests[0]).toMatchObject({
      seq: Number(before.lastSeq) + 1,
      method: 'POST',
      path: '/plants',
      status: 200,
      requestId: 'journal-test-1',
    });
    expect(journal.requests[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof journal.requests[0].durationMs).toBe('number');
  });

  it.each([
    ['after=x', 'after must be a whole number from 0, the seq of a journal entry (got "x")'],
    ['after=-1', 'after must be a whole number from 0, the seq of a journal entry (got "-1")'],
    ['limit=3', 'unknown query parameter "limit"; only after is taken'],
  ])('answers a bad query (%s) with 400 and says what is taken', async (query, message) => {
    const answer = await send(`${server.url}/_serve/journal?${query}`, { headers: auth(server.token) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 400, message });
  });

  it('streams new requests as Server-Sent Events', async () => {
    const stream = await request(`${server.url}/_serve/events?after=999999`, { headers: auth(server.token) });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['content-security-policy']).toBe(PAGE_CSP);
    let text = '';
    const seen = new Promise<void>((resolve) => {
      stream.body.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('"requestId":"stream-test-1"')) resolve();
      });
    });
    await postPlant(server.url, server.token, '{"id":424242,"name":"Streamed"}', { 'x-request-id': 'stream-test-1' });
    await seen;
    expect(text).toMatch(/^retry: 2000\n\n/);
    expect(text).toMatch(
      /id: \d+\nevent: request\ndata: \{"seq":\d+,.*"method":"POST","path":"\/plants","status":200,/,
    );
    stream.body.destroy();
  });

  it('reports requests per second and latency', async () => {
    await postPlant(server.url, server.token, '{"id":515151,"name":"Counted"}');
    const answer = await send(`${server.url}/_serve/rates`, { headers: auth(server.token) });
    expect(answer.status).toBe(200);
    const rates = JSON.parse(answer.text);
    expect(rates.seconds).toBe(300);
    expect(rates.buckets.length).toBeGreaterThan(0);
    const [t, count, meanMs, maxMs] = rates.buckets.at(-1);
    expect(t).toBeLessThanOrEqual(rates.now);
    expect(count).toBeGreaterThan(0);
    expect(maxMs).toBeGreaterThanOrEqual(meanMs);
  });

  it('shows the controls in force, read-only without --allow-reset, and refuses changes with 403', async () => {
    const answer = await send(`${readOnly.url}/_serve/controls`, { headers: auth(readOnly.token) });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      editable: false,
      reset: false,
      delay: { minMs: 1, maxMs: 2 },
      faults: [{ kind: '503', rate: 0.25 }],
      faultSeed: 7,
    });
    const change = await putControls(readOnly, '{"faults":[]}');
    expect(change.status).toBe(403);
    expect(change.json).toEqual({
      error: 403,
      message: 'the controls are read-only on this server: start plants serve with --allow-reset to change them',
    });
    const unauthorized = await putControls(readOnly, '{"faults":[]}', auth('wrong-token-0123456789abcdef'));
    expect(unauthorized.status).toBe(401);
  });

  it('with --allow-reset, switches a fault on and off between requests over the API', async () => {
    const on = await putControls(server, '{"faults":[{"kind":"503","rate":1}],"faultSeed":1}');
    expect(on.status).toBe(200);
    expect(JSON.parse(on.text)).toEqual({
      editable: true,
      reset: true,
      delay: null,
      faults: [{ kind: '503', rate: 1 }],
      faultSeed: 1,
    });
    const faulted = await postPlant(server.url, server.token, '{"id":777,"name":"Never"}');
    expect(faulted.status).toBe(503);
    expect(faulted.headers['retry-after']).toBe('1');
    const journal = JSON.parse((await send(`${server.url}/_serve/journal`, { headers: auth(server.token) })).text);
    expect(journal.requests.at(-1)).toMatchObject({ method: 'POST', path: '/plants', status: 503, fault: '503' });
    const delayed = await putControls(server, '{"faults":[],"delay":{"minMs":0,"maxMs":5}}');
    expect(JSON.parse(delayed.text)).toMatchObject({ faults: [], delay: { minMs: 0, maxMs: 5 }, faultSeed: 1 });
    const off = await putControls(server, '{"delay":null}');
    expect(JSON.parse(off.text)).toMatchObject({ faults: [], delay: null });
    expect((await postPlant(server.url, server.token, '{"id":777,"name":"Now"}')).status).toBe(200);
  });

  it('starts the fault draws afresh at each change: the same change, the same requests, the same faults', async () => {
    const statuses = async () => {
      const seen: number[] = [];
      for (let i = 0; i < 20; i += 1)
        seen.push((await send(`${server.url}/plants?limit=1`, { headers: auth(server.token) })).status);
      return seen;
    };
    const change = '{"faults":[{"kind":"503","rate":0.5}],"faultSeed":42}';
    expect((await putControls(server, change)).status).toBe(200);
    const first = await statuses();
    expect((await putControls(server, change)).status).toBe(200);
    const second = await statuses();
    expect((await putControls(server, '{"faults":[]}')).status).toBe(200);
    expect(first).toEqual(second);
    expect(first).toContain(503);
    expect(first).toContain(200);
  });

  it.each([
    ['not json', 'request body is not valid JSON'],
    ['[]', 'invalid controls: the body must be a JSON object with delay, faults or faultSeed'],
    ['{"fault":[]}', 'invalid controls: unknown field "fault"; the fields are delay, faults and faultSeed'],
    [
      '{"faults":[{"kind":"500","rate":0.1}]}',
      'invalid controls: faults[0].kind: must be one of 503, reset, stall, truncate',
    ],
    [
      '{"faults":[{"kind":"503","rate":1.5}]}',
      'invalid controls: faults[0].rate: must be a number from 0 to 1 (the fraction of plant requests it meets)',
    ],
    [
      '{"faults":[{"kind":"503","rate":0.6},{"kind":"reset","rate":0.6}]}',
      'invalid controls: faults: the rates add up to more than 1 (a request meets one fault at most)',
    ],
    [
      '{"faults":[{"kind":"503","rate":0.1},{"kind":"503","rate":0.1}]}',
      'invalid controls: faults: give each kind once',
    ],
    ['{"faults":"503"}', 'invalid controls: faults: must be a list of faults, each an object {"kind": …, "rate": …}'],
    ['{"faults":[503]}', 'invalid controls: faults[0]: must be an object {"kind": …, "rate": …}'],
    [
      '{"faults":[{"kind":"503","rate":0.1,"seed":1}]}',
      'invalid controls: faults[0]: unknown field "seed"; a fault has kind and rate',
    ],
    ['{"delay":{"minMs":5,"maxMs":1}}', 'invalid controls: delay: minMs must not be more than maxMs'],
    [
      '{"delay":{"minMs":-1,"maxMs":1}}',
      'invalid controls: delay.minMs: must be a whole number of milliseconds from 0 to 600000',
    ],
    [
      '{"delay":{"minMs":0,"maxMs":600001}}',
      'invalid controls: delay.maxMs: must be a whole number of milliseconds from 0 to 600000',
    ],
    ['{"delay":5}', 'invalid controls: delay: must be null (no delay) or an object {"minMs": …, "maxMs": …}'],
    [
      '{"faults":[{"kind":"503"}]}',
      'invalid controls: faults[0].rate: must be a number from 0 to 1 (the fraction of plant requests it meets)',
    ],
    ['{"faultSeed":1.5}', 'invalid controls: faultSeed: must be a whole number from 0 to 4294967295'],
  ])('answers a bad controls body %s with 400 and what is wrong, changing nothing', async (body, message) => {
    const before = (await send(`${server.url}/_serve/controls`, { headers: auth(server.token) })).text;
    const answer = await putControls(server, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 400, message });
    expect((await send(`${server.url}/_serve/controls`, { headers: auth(server.token) })).text).toBe(before);
  });

  it('answers a controls body that is not JSON by its content type with 415', async () => {
    const answer = await putControls(server, 'faults=1', { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.json).toEqual({ error: 415, message: 'content-type must be application/json, not text/plain' });
  });

  it('refuses other origins, even one --cors allows, and adds no CORS header', async () => {
    const origin = 'http://localhost:5173';
    const fromApp = await send(`${withCors.url}/_serve/journal`, { headers: { ...auth(withCors.token), origin } });
    expect(fromApp.status).toBe(403);
    expect(fromApp.json).toEqual({ error: 403, message: "cross-origin requests to the page's endpoints are refused" });
    expect(fromApp.headers['access-control-allow-origin']).toBeUndefined();
    const crossSite = await send(`${withCors.url}/_serve/controls`, {
      headers: { ...auth(withCors.token), 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await send(`${withCors.url}/_serve/journal`, {
      headers: { ...auth(withCors.token), origin: withCors.url, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    // The plant routes keep their CORS as before.
    const plants = await send(`${withCors.url}/plants`, { headers: { ...auth(withCors.token), origin } });
    expect(plants.headers['access-control-allow-origin']).toBe(origin);
  });

  it('answers a wrong method on a page route with 405 and what is allowed', async () => {
    const answer = await send(`${server.url}/_serve/journal`, { method: 'DELETE', headers: auth(server.token) });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET');
  });
});
