import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoredPlants, type StoreServer, startStoreServer, TEST_TOKEN } from '../helpers/store-server.js';
import { type RawAnswer, RawConnection } from './http-client.js';

// HTTP that a proxy, a load balancer or an unusual client sends and curl on a laptop does not,
// written byte for byte on a raw socket: an HTTP client library would refuse to send most of it.

let server: StoreServer;

beforeAll(async () => {
  server = await startStoreServer();
});

afterAll(async () => {
  await server?.close();
});

async function exchange(request: string | Buffer): Promise<RawAnswer> {
  const connection = new RawConnection(server.port);
  try {
    await connection.write(request);
    const answer = await connection.waitForResponse();
    if (answer === undefined) throw new Error(`no answer to ${JSON.stringify(String(request).slice(0, 80))}`);
    return answer;
  } finally {
    connection.destroy();
  }
}

function head(requestLine: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${requestLine}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n${lines.join('')}\r\n`;
}

function chunked(body: string | Buffer): Buffer {
  const bytes = Buffer.from(body);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
}

const storedIds = () => readStoredPlants(server.dbPath).map((row) => row.id);

describe('content codings', () => {
  it('answers 415 with Accept-Encoding: identity to a gzip body, and stores nothing', async () => {
    const body = gzipSync('{"id":101,"name":"zipped"}');
    const answer = await exchange(
      Buffer.concat([
        Buffer.from(
          head('POST /plants HTTP/1.1', {
            'Content-Type': 'application/json',
            'Content-Encoding': 'gzip',
            'Content-Length': body.length,
          }),
        ),
        body,
      ]),
    );
    expect(answer.status).toBe(415);
    expect(answer.headers['accept-encoding']).toBe('identity');
    expect(JSON.parse(answer.body)).toEqual({
      error: 415,
      message: 'content coding "gzip" is not supported; send the body unencoded',
    });
    expect(storedIds()).not.toContain(101n);
  });

  it('answers 415 to Content-Encoding: gzip on a body that is plain JSON (it is not stored as if plain)', async () => {
    const body = '{"id":102,"name":"claims gzip"}';
    const answer = await exchange(
      head('POST /plants HTTP/1.1', {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Content-Length': body.length,
      }) + body,
    );
    expect(answer.status).toBe(415);
    expect(answer.headers['accept-encoding']).toBe('identity');
    expect(storedIds()).not.toContain(102n);
  });

  it('takes Content-Encoding: identity as no coding', async () => {
    const body = '{"id":103,"name":"identity"}';
    const answer = await exchange(
      head('POST /plants HTTP/1.1', {
        'Content-Type': 'application/json',
        'Content-Encoding': 'identity',
        'Content-Length': body.length,
      }) + body,
    );
    expect(answer.status).toBe(200);
    expect(storedIds()).toContain(103n);
  });
});

describe('transfer codings', () => {
  it.each([
    ['gzip, chunked', 'gzip'],
    ['deflate, chunked', 'deflate'],
    // Not ending in chunked: node would read the body up to the end of the connection.
    ['gzip', 'gzip'],
  ])('answers 501 to Transfer-Encoding: %s, closes, and stores nothing', async (coding, named) => {
    const answer = await exchange(
      Buffer.concat([
        Buffer.from(head('POST /plants HTTP/1.1', { 'Content-Type': 'application/json', 'Transfer-Encoding': coding })),
        chunked('{"id":111,"name":"coded"}'),
      ]),
    );
    expect(answer.status).toBe(501);
    // The body's end cannot be trusted: the connection goes after the answer.
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      error: 501,
      message: `transfer coding ${JSON.stringify(named)} is not supported; send the body with Content-Length or chunked alone`,
    });
    expect(storedIds()).not.toContain(111n);
  });

  it('stores a plain chunked body', async () => {
    const answer = await exchange(
      Buffer.concat([
        Buffer.from(
          head('POST /plants HTTP/1.1', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }),
        ),
        chunked('{"id":112,"name":"chunked"}'),
      ]),
    );
    expect(answer.status).toBe(200);
    expect(storedIds()).toContain(112n);
  });
});

describe('request targets', () => {
  it('routes an absolute-form target (as a forward proxy sends it) by its path', async () => {
    const body = '{"id":121,"name":"via proxy"}';
    const answer = await exchange(
      head(`POST http://127.0.0.1:${server.port}/plants HTTP/1.1`, {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
      }) + body,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ id: 121, name: 'via proxy' });
    expect(storedIds()).toContain(121n);
  });

  it('routes an absolute-form GET with a query, and names only the path in a 404', async () => {
    const list = await exchange(head('GET http://plants.example/plants?limit=1 HTTP/1.1', {}));
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toHaveLength(1);
    const missing = await exchange(head('GET https://plants.example/nope?x=1 HTTP/1.1', {}));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: 404, message: 'no such path: /nope' });
  });
});

describe('framing a proxy must not be trusted with (400, nothing stored)', () => {
  const body = '{"id":131,"name":"smuggled"}';
  it.each([
    [
      'two different Content-Lengths',
      head('POST /plants HTTP/1.1', {
        'Content-Type': 'application/json',
        'Content-Length': `${body.length}\r\nContent-Length: ${body.length + 1}`,
      }) + body,
    ],
    [
      'Content-Length and Transfer-Encoding both',
      head('POST /plants HTTP/1.1', {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'Transfer-Encoding': 'chunked',
      }) + chunked(body).toString(),
    ],
    [
      'a header folded over two lines (obs-fold)',
      head('POST /plants HTTP/1.1', {
        'Content-Type': 'application/json',
        'X-Folded': 'one\r\n two',
        'Content-Length': body.length,
      }) + body,
    ],
  ])('answers 400 to %s', async (_what, request) => {
    const answer = await exchange(request);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 400, message: 'malformed HTTP request' });
    expect(storedIds()).not.toContain(131n);
  });
});

describe('the served contract', () => {
  it('declares the 501 of POST /plants and the Accept-Encoding of its 415', async () => {
    const answer = await exchange('GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const doc = JSON.parse(answer.body);
    expect(doc.paths['/plants'].post.responses['501']).toEqual({ $ref: '#/components/responses/NotImplemented' });
    expect(doc.components.responses.NotImplemented.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(Object.keys(doc.components.responses.UnsupportedMediaType.headers)).toEqual(['Accept-Encoding']);
  });
});
