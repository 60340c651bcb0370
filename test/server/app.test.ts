import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonExact, stringifyJsonExact } from '../../src/schema/exact-json.js';
import { MAX_TEXT_LENGTH, OUTCOME_UNKNOWN } from '../../src/schema/plant.js';
import { LINGER_MS } from '../../src/server/http/connection.js';
import { Database } from '../../src/server/stores/sqlite/sqlite-driver.js';
import { runSql, storeBackends } from '../helpers/store-backends.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { type Answer, postPlant as post, RawConnection, send, sleep, waitUntil } from './http-client.js';

function plantJson(id: string, name = `plant ${id}`, tag?: string): string {
  return tag === undefined
    ? `{"id":${id},"name":${JSON.stringify(name)}}`
    : `{"id":${id},"name":"${name}","tag":"${tag}"}`;
}

function expectError(answer: Answer, status: number, message?: string | RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  // Exactly the Error shape: these two keys and nothing else.
  expect(Object.keys(answer.json as object).sort()).toEqual(['error', 'message']);
  expect((answer.json as { error: unknown }).error).toBe(status);
  const text = (answer.json as { message: unknown }).message;
  expect(typeof text).toBe('string');
  if (typeof message === 'string') expect(text).toBe(message);
  else if (message !== undefined) expect(text).toMatch(message);
}

/** Makes every write fail inside the database until the returned function is called. */
async function breakWrites(server: StoreServer): Promise<() => Promise<void>> {
  if (server.backend === 'sqlite') {
    const holder = new Database(server.dbPath);
    holder.exec('BEGIN IMMEDIATE');
    return async () => {
      holder.exec('ROLLBACK');
      holder.close();
    };
  }
  await runSql(server.dbPath, 'ALTER TABLE plants RENAME TO plants_away');
  return async () => {
    await runSql(server.dbPath, 'ALTER TABLE plants_away RENAME TO plants');
  };
}

// Every route, on each store: the same statuses, bodies and ids whichever database is behind.
describe.each(storeBackends())('on $name', (backend) => {
  let server: StoreServer;
  /** Every status POST /plants answered in this file; the contract must declare each one. */
  const observedPostStatuses = new Set<number>();

  async function postPlant(...args: Parameters<typeof post>): Promise<Answer> {
    const answer = await post(...args);
    observedPostStatuses.add(answer.status);
    return answer;
  }

  async function storedIds(): Promise<bigint[]> {
    return (await server.readPlants()).map((row) => row.id);
  }

  beforeAll(async () => {
    server = await startStoreServer({ backend });
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('POST /plants', () => {
    it('stores a plant and answers 200 with it, tag included when set', async () => {
      const answer = await postPlant(server.url, server.token, '{"id":1,"name":"fern","tag":"green","extra":true}');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.text).toBe('{"id":1,"name":"fern","tag":"green"}');

      const bare = await postPlant(server.url, server.token, '{"name":"moss","id":2}');
      expect(bare.text).toBe('{"id":2,"name":"moss"}');
      expect((await server.readPlants()).filter((row) => row.id <= 2n)).toEqual([
        { id: 1n, name: 'fern', tag: 'green' },
        { id: 2n, name: 'moss', tag: null },
      ]);
    });

    it.each([
      ['9223372036854775807', 9223372036854775807n],
      ['-9223372036854775808', -9223372036854775808n],
      ['9007199254740993', 9007199254740993n],
      ['9007199254740992', 9007199254740992n],
    ])('keeps the int64 id %s exact, in the answer and on disk', async (text, id) => {
      const answer = await postPlant(server.url, server.token, plantJson(text, 'edge'));
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(`{"id":${text},"name":"edge"}`);
      // All four are past 2^53 - 1, so an exact parse gives them back as bigint.
      expect(parseJsonExact(answer.text)).toEqual({ id, name: 'edge' });
      expect(await storedIds()).toContain(id);
    });

    it('stores 2^53 and 2^53 + 1 as two different plants', async () => {
      const rows = (await server.readPlants()).filter(
        (row) => row.id === 9007199254740992n || row.id === 9007199254740993n,
      );
      expect(rows).toHaveLength(2);
    });

    it('accepts application/json with a utf-8 charset parameter, in any case', async () => {
      for (const [index, type] of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"'].entries()) {
        const answer = await postPlant(server.url, server.token, plantJson(`${100 + index}`), { 'content-type': type });
        expect(answer.status).toBe(200);
      }
    });

    it('takes the Bearer scheme name in any case', async () => {
      const answer = await postPlant(server.url, undefined, plantJson('110'), {
        authorization: `bearer ${server.token}`,
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('POST /plants refusals (nothing stored)', () => {
    const storedNow = () => server.readPlants();

    it.each([
      ['malformed JSON', '{"id": 5, "name": ', /^not valid JSON: /],
      ['an empty body', '', /^not valid JSON: /],
      ['a JSON array', '[{"id":5,"name":"x"}]', 'a NewPlant must be a JSON object with id, name and optional tag'],
      ['a JSON string', '"fern"', 'a NewPlant must be a JSON object with id, name and optional tag'],
      ['JSON null', 'null', 'a NewPlant must be a JSON object with id, name and optional tag'],
      ['a JSON number', '5', 'a NewPlant must be a JSON object with id, name and optional tag'],
      ['no id', '{"name":"fern"}', 'invalid plant: id: is required'],
      ['no name', '{"id":5}', 'invalid plant: name: is required'],
      ['an empty name', '{"id":5,"name":""}', 'invalid plant: name: must not be empty'],
      ['a numeric name', '{"id":5,"name":7}', 'invalid plant: name: must be a string'],
      ['a null tag', '{"id":5,"name":"fern","tag":null}', 'invalid plant: tag: must be a string'],
      ['a numeric tag', '{"id":5,"name":"fern","tag":1}', 'invalid plant: tag: must be a string'],
      [
        'a name over 1024 characters',
        `{"id":5,"name":"${'n'.repeat(1025)}"}`,
        'invalid plant: name: must be at most 1024 characters',
      ],
      ['a lone surrogate in the name', '{"id":5,"name":"\\ud800"}', /^invalid plant: name: must be valid Unicode/],
      ['two different values for one key', '{"id":5,"id":6,"name":"fern"}', /^not valid JSON: /],
      [
        'two broken fields',
        '{"id":"5"}',
        'invalid plant: id: must be a JSON number, not a string (got "5"); name: is required',
      ],
      [
        'JSON nested deeper than the parser goes',
        `{"id":5,"name":"x","deep":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
        'not valid JSON: JSON nested too deeply',
      ],
    ])('answers 400 to %s', async (_what, body, message) => {
      const stored = await storedNow();
      const answer = await postPlant(server.url, server.token, body);
      expectError(answer, 400, message);
      expect(await server.readPlants()).toEqual(stored);
    });

    it.each([
      ['9223372036854775808', 'one past the int64 maximum'],
      ['-9223372036854775809', 'one below the int64 minimum'],
      ['18446744073709551616', '2^64'],
      ['1.5', 'a fraction'],
      ['1.0', 'a whole number written with a fraction'],
      ['1e3', 'an exponent'],
      ['9007199254740993.0', 'past 2^53 with a fraction'],
      ['"42"', 'a string'],
      ['true', 'a boolean'],
      ['null', 'null'],
      ['{}', 'an object'],
    ])('answers 400 naming the id to the id %s (%s)', async (id, _what) => {
      const stored = await storedNow();
      const answer = await postPlant(server.url, server.token, `{"id":${id},"name":"bad id"}`);
      expectError(answer, 400, /^invalid plant: id: /);
      expect(await server.readPlants()).toEqual(stored);
    });

    it('answers 400 to a body that is not UTF-8', async () => {
      const body = Buffer.concat([Buffer.from('{"id":5,"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      expectError(await postPlant(server.url, server.token, body), 400, 'request body is not valid UTF-8');
      expect(await storedIds()).not.toContain(5n);
    });

    it.each([
      ['no Authorization header', undefined, 'Bearer realm="plants"'],
      ['an empty Authorization header', '', 'Bearer realm="plants"'],
      ['another scheme', 'Basic dXNlcjpwYXNz', 'Bearer realm="plants"'],
      ['Bearer with no token', 'Bearer', 'Bearer realm="plants"'],
      ['a wrong token', 'Bearer wrong-token', 'Bearer realm="plants", error="invalid_token"'],
      [
        'the token with a character more',
        `Bearer ${'test-token-0123456789abcdef'}x`,
        'Bearer realm="plants", error="invalid_token"',
      ],
      ['a token that is a prefix of the real one', 'Bearer test-token', 'Bearer realm="plants", error="invalid_token"'],
      [
        'two words after Bearer',
        'Bearer test-token-0123456789abcdef extra',
        'Bearer realm="plants", error="invalid_token"',
      ],
      ['characters a token cannot have', 'Bearer abc!def', 'Bearer realm="plants", error="invalid_token"'],
    ])('answers 401 to %s, with the RFC 6750 challenge', async (_what, authorization, challenge) => {
      const stored = await storedNow();
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const answer = await postPlant(server.url, undefined, plantJson('6'), headers);
      expectError(answer, 401);
      expect(answer.headers['www-authenticate']).toBe(challenge);
      expect(await server.readPlants()).toEqual(stored);
    });

    it('checks the token before it looks at the content type or the body', async () => {
      expectError(await postPlant(server.url, 'wrong', '{not json', { 'content-type': 'text/plain' }), 401);
      expectError(await postPlant(server.url, undefined, '{not json'), 401);
    });

    it('answers 409 to an id already stored, with the stored plant, and leaves it as it was', async () => {
      expect((await postPlant(server.url, server.token, plantJson('300', 'original', 'a'))).status).toBe(200);
      const answer = await postPlant(server.url, server.token, plantJson('300', 'impostor', 'b'));
      expect(answer.status).toBe(409);
      expect(answer.headers['content-type']).toBe('application/json');
      // The Error record, and the plant as stored (README, OpenAPI: Conflict), byte for byte.
      expect(answer.text).toBe(
        '{"error":409,"message":"a plant with id 300 already exists","plant":{"id":300,"name":"original","tag":"a"}}',
      );
      expect((await server.readPlants()).find((row) => row.id === 300n)).toEqual({
        id: 300n,
        name: 'original',
        tag: 'a',
      });
    });

    it.each(['9223372036854775806', '-9223372036854775807', '9007199254740995'])(
      'carries the stored plant of int64 id %s in its 409 digit for digit, no tag as stored',
      async (text) => {
        expect((await postPlant(server.url, server.token, plantJson(text, 'kept'))).status).toBe(200);
        const answer = await postPlant(server.url, server.token, plantJson(text, 'other', 'x'));
        expect(answer.status).toBe(409);
        expect(answer.text).toBe(
          `{"error":409,"message":"a plant with id ${text} already exists","plant":{"id":${text},"name":"kept"}}`,
        );
      },
    );

    it.each([
      ['no content type', undefined, 'content-type must be application/json'],
      ['text/plain', 'text/plain', 'content-type must be application/json, not text/plain'],
      ['application/jsonx', 'application/jsonx', 'content-type must be application/json, not application/jsonx'],
      ['a latin1 charset', 'application/json; charset=latin1', 'charset must be utf-8, not latin1'],
    ])('answers 415 to %s', async (_what, type, message) => {
      const stored = await storedNow();
      const headers: Record<string, string> = { authorization: `Bearer ${server.token}` };
      const answer =
        type === undefined
          ? await send(`${server.url}/plants`, { method: 'POST', body: plantJson('7'), headers })
          : await postPlant(server.url, server.token, plantJson('7'), { 'content-type': type });
      observedPostStatuses.add(answer.status);
      expectError(answer, 415, message);
      expect(await server.readPlants()).toEqual(stored);
    });

    it('answers 413 to a body over 64 KiB, by its Content-Length, and stays usable', async () => {
      const body = `{"id":8,"name":"big","pad":"${'x'.repeat(64 * 1024)}"}`;
      expectError(await postPlant(server.url, server.token, body), 413, 'request body is larger than 65536 bytes');
      expect(await storedIds()).not.toContain(8n);
      expect((await postPlant(server.url, server.token, plantJson('8'))).status).toBe(200);
    });
  });

  describe('paths and methods', () => {
    it('answers GET /healthz without a token', async () => {
      const answer = await send(`${server.url}/healthz`);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.text).toBe('{"status":"ok"}');
      const head = await send(`${server.url}/healthz`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
    });

    it.each([
      ['POST', '/nope'],
      ['GET', '/'],
      ['POST', '/plants/'],
      ['POST', '/plants/1/2'],
      ['GET', '/PLANTS'],
    ])('answers 404 to %s %s', async (method, path) => {
      const answer = await send(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: method === 'POST' ? plantJson('9') : undefined,
      });
      expectError(answer, 404, `no such path: ${path}`);
      expect(await storedIds()).not.toContain(9n);
    });

    it.each([
      ['PUT', '/plants', 'POST, GET'],
      ['DELETE', '/plants', 'POST, GET'],
      ['POST', '/plants/1', 'GET, DELETE'],
      ['PUT', '/plants/1', 'GET, DELETE'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/openapi.json', 'GET, HEAD'],
    ])('answers 405 to %s %s with Allow: %s', async (method, path, allow) => {
      const answer = await send(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.token}` },
      });
      expectError(answer, 405, new RegExp(`^${method} is not allowed on ${path.replace('.', '\\.')}; use `));
      expect(answer.headers.allow).toBe(allow);
    });

    it('ignores the query string when routing', async () => {
      expect((await send(`${server.url}/healthz?verbose=1`)).status).toBe(200);
    });
  });

  describe('malformed HTTP', () => {
    it('answers a request that is not HTTP with a 400 Error body and closes', async () => {
      const connection = new RawConnection(server.port);
      await connection.write('THIS IS NOT HTTP\r\n\r\n');
      const answer = await connection.waitForResponse();
      expect(answer?.status).toBe(400);
      expect(answer?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer?.body ?? '')).toEqual({ error: 400, message: 'malformed HTTP request' });
      expect(await connection.waitForClose()).toBe(true);
    });

    it('answers headers over 16 KiB with a 431 Error body', async () => {
      const connection = new RawConnection(server.port);
      await connection.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      const answer = await connection.waitForResponse();
      expect(answer?.status).toBe(431);
      expect(JSON.parse(answer?.body ?? '')).toEqual({ error: 431, message: 'request headers are too large' });
      connection.destroy();
    });

    it('answers 413 to a huge Content-Length at once, without waiting for the body', async () => {
      const connection = new RawConnection(server.port);
      await connection.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{"id":',
      );
      const answer = await connection.waitForResponse();
      expect(answer?.status).toBe(413);
      expect(answer?.headers.connection).toBe('close');
      expect(JSON.parse(answer?.body ?? '')).toEqual({
        error: 413,
        message: 'request body is larger than 65536 bytes',
      });
      observedPostStatuses.add(413);
      connection.destroy();
    });
  });

  describe('one connection (RFC 9112 §9.3)', () => {
    const auth = () => `Authorization: Bearer ${server.token}\r\n`;
    const postRequest = (id: string) => {
      const body = plantJson(id);
      return (
        `POST /plants HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    const bodyless = (method: string, path: string, withToken = true) =>
      `${method} ${path} HTTP/1.1\r\nHost: x\r\n${withToken ? auth() : ''}\r\n`;

    it('applies pipelined requests in the order sent, and answers every one in order', async () => {
      const connection = new RawConnection(server.port);
      try {
        await connection.write(
          postRequest('7001') +
            bodyless('GET', '/plants/7001') +
            bodyless('DELETE', '/plants/7001') +
            bodyless('GET', '/plants/7001') +
            postRequest('7001') +
            bodyless('DELETE', '/plants/7001') +
            bodyless('DELETE', '/plants/7001'),
        );
        const answers = await connection.waitForResponses(7);
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 204, 404, 200, 204, 404]);
        expect(answers[1]?.body).toBe('{"id":7001,"name":"plant 7001"}');
        expect(connection.closed).toBe(false);
        expect(await storedIds()).not.toContain(7001n);
      } finally {
        connection.destroy();
      }
    });

    it.each([['/plants/%ZZ'], ['/plants/%E2%82'], ['/plants/%'], ['/plants/1%']])(
      'answers %s with a 400 (a 401 without a token), never a 500 or an internal error',
      async (path) => {
        const before = server.internalErrors.length;
        const connection = new RawConnection(server.port);
        try {
          await connection.write(bodyless('GET', path, false) + bodyless('GET', path) + bodyless('DELETE', path));
          const answers = await connection.waitForResponses(3);
          expect(answers.map((answer) => answer.status)).toEqual([401, 400, 400]);
          expect(JSON.parse(answers[1]?.body ?? '{}').message).toMatch(/^id: /);
        } finally {
          connection.destroy();
        }
        expect(server.internalErrors.length).toBe(before);
      },
    );

    it.each([
      ['a 401', 'GET', '/plants/1', false, 401],
      ['a 404', 'GET', '/nope', true, 404],
      ['a 405', 'PUT', '/plants/1', true, 405],
      ['a 400', 'GET', '/plants?limit=0', true, 400],
    ])('keeps the connection after %s to a request without a body', async (_what, method, path, withToken, status) => {
      const connection = new RawConnection(server.port);
      try {
        await connection.write(bodyless(method, path, withToken) + bodyless('GET', '/healthz'));
        const answers = await connection.waitForResponses(2);
        expect(answers.map((answer) => answer.status)).toEqual([status, 200]);
        expect(answers[0]?.headers.connection).not.toBe('close');
        expect(connection.closed).toBe(false);
      } finally {
        connection.destroy();
      }
    });

    it('answers Expect: 100-continue without a valid token with a 401 at once, never 100 Continue', async () => {
      for (const authorization of ['', 'Authorization: Bearer wrong-token\r\n']) {
        const connection = new RawConnection(server.port);
        try {
          await connection.write(
            `POST /plants HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\n` +
              'Content-Length: 30\r\nExpect: 100-continue\r\n\r\n',
          );
          const answer = await connection.waitForResponse();
          expect(answer?.status).toBe(401);
          expect(connection.raw).not.toContain('100 Continue');
          // The client may or may not send the body now: the server cannot tell, so it closes.
          expect(answer?.headers.connection).toBe('close');
        } finally {
          connection.destroy();
        }
      }
    });

    it('answers Expect: 100-continue with a valid token with 100 Continue, then stores the plant', async () => {
      const connection = new RawConnection(server.port);
      try {
        const body = plantJson('7002');
        await connection.write(
          `POST /plants HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
        );
        await waitUntil(() => connection.raw.includes('100 Continue'), 5000, '100 Continue');
        await connection.write(body);
        await waitUntil(() => connection.raw.includes('\r\n\r\n{'), 5000, 'the final answer');
        expect(connection.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
      } finally {
        connection.destroy();
      }
      expect(await storedIds()).toContain(7002n);
    });
  });

  describe('with a small body limit', () => {
    let small: StoreServer;
    beforeAll(async () => {
      small = await startStoreServer({ backend, maxBodyBytes: 256 });
    });
    afterAll(async () => {
      await small?.close();
    });

    function padded(id: number, size: number): string {
      const head = `{"id":${id},"name":"pad"}`;
      return head + ' '.repeat(size - head.length);
    }

    it('accepts a body of exactly maxBodyBytes and refuses one byte more', async () => {
      expect((await postPlant(small.url, small.token, padded(1, 256))).status).toBe(200);
      expectError(
        await postPlant(small.url, small.token, padded(2, 257)),
        413,
        'request body is larger than 256 bytes',
      );
      expect((await small.readPlants()).map((row) => row.id)).toEqual([1n]);
    });

    it('answers a chunked body as soon as it passes the limit, says Connection: close, and reads on until the client is done', async () => {
      const connection = new RawConnection(small.port, '127.0.0.1', { allowHalfOpen: true });
      const chunk = `{"id":3,"name":"chunked","pad":"${'x'.repeat(400)}"}`;
      await connection.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${small.token}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
          `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      );
      // The body is not finished (no last chunk), yet the answer comes, and it ends the connection:
      // a chunked body could go on for ever.
      const answer = await connection.waitForResponse();
      expect(answer?.status).toBe(413);
      expect(answer?.headers.connection).toBe('close');
      expect(JSON.parse(answer?.body ?? '')).toEqual({ error: 413, message: 'request body is larger than 256 bytes' });
      // A client that has not read the answer yet goes on sending: the server reads on (lingers)
      // rather than resetting the connection, which would throw the unread answer away. 200 KiB
      // is far more than the kernel would buffer for a connection nobody reads.
      const more = `${(1000).toString(16)}\r\n${'x'.repeat(1000)}\r\n`.repeat(20);
      for (let i = 0; i < 10; i++) await connection.write(more);
      await connection.write('0\r\n\r\n');
      connection.end();
      expect(await connection.waitForClose()).toBe(true);
      expect(connection.error).toBeUndefined();
      expect((await small.readPlants()).map((row) => row.id)).not.toContain(3n);
    });

    it('cuts a connection that keeps sending past its 413, after lingering', async () => {
      const connection = new RawConnection(small.port, '127.0.0.1', { allowHalfOpen: true });
      await connection.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${small.token}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = `${(1000).toString(16)}\r\n${'x'.repeat(1000)}\r\n`;
      const giveUpAt = Date.now() + 4 * LINGER_MS;
      while (!connection.closed && Date.now() < giveUpAt) {
        await connection.write(chunk).catch(() => {});
        await sleep(5);
      }
      expect(connection.closed).toBe(true);
      expect(parseRawAnswerStatus(connection.raw)).toBe(413);
    });

    it('keeps the connection after an early answer to a small body, and throws that body away', async () => {
      const connection = new RawConnection(small.port);
      const body = '{"id":4,"name":"unauthorized"}';
      await connection.write(
        'POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong-token\r\n' +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      // Answered before the body has come.
      const answer = await connection.waitForResponse();
      expect(answer?.status).toBe(401);
      expect(answer?.headers.connection).not.toBe('close');
      const before = connection.raw.length;
      await connection.write(`${body}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      await waitUntil(() => connection.raw.slice(before).includes('{"status":"ok"}'), 5000, 'second answer');
      expect(connection.closed).toBe(false);
      connection.destroy();
      expect((await small.readPlants()).map((row) => row.id)).not.toContain(4n);
    });
  });

  function parseRawAnswerStatus(raw: string): number {
    return Number(raw.split(' ', 2)[1]);
  }

  describe('concurrency', () => {
    it('answers exactly one 200 to 50 concurrent adds of one id, the others 409', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => postPlant(server.url, server.token, plantJson('4242', `racer ${i}`))),
      );
      const winners = answers.filter((answer) => answer.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(49);
      const stored = (await server.readPlants()).filter((row) => row.id === 4242n);
      expect(stored).toHaveLength(1);
      expect(winners[0]?.text).toBe(`{"id":4242,"name":"${stored[0]?.name}"}`);
    });

    it('acknowledges 200 concurrent adds and has every one stored', async () => {
      const ids = Array.from({ length: 200 }, (_, i) => 10_000n + BigInt(i));
      const answers = await Promise.all(ids.map((id) => postPlant(server.url, server.token, plantJson(String(id)))));
      expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
      const stored = new Set(await storedIds());
      expect(ids.filter((id) => !stored.has(id))).toEqual([]);
    });
  });

  describe('500', () => {
    it('answers a failing database with a bare 500, stores nothing, and recovers', async () => {
      const broken = await startStoreServer({ backend, busyTimeoutMs: 50 });
      try {
        // A fault inside the database that is no fault of the connection: on SQLite another
        // process holds the write lock; on PostgreSQL the table is not there (renamed away).
        const heal = await breakWrites(broken);
        let answer: Answer;
        try {
          answer = await postPlant(broken.url, broken.token, plantJson('1', 'blocked'));
        } finally {
          await heal();
        }
        expectError(answer, 500, 'internal server error');
        expect(answer.text).not.toMatch(/SQLITE|locked|relation|at /);
        expect(broken.internalErrors).toHaveLength(1);
        expect(broken.internalErrors[0]).toMatchObject({ code: backend.name === 'sqlite' ? 'SQLITE_BUSY' : '42P01' });
        expect(await broken.readPlants()).toEqual([]);
        expect((await postPlant(broken.url, broken.token, plantJson('2', 'after'))).status).toBe(200);
        expect(broken.logLines.filter((line) => line.startsWith('POST /plants '))).toEqual([
          expect.stringMatching(/^POST \/plants 500 /),
          expect.stringMatching(/^POST \/plants 200 /),
        ]);
      } finally {
        await broken.close();
      }
    });
  });
  describe('any input', () => {
    // 150 requests, each checked against the table over a connection of its own: slow on PostgreSQL under load.
    it('answers 200, 400 or 409 with an Error body, stores only on 200, and keeps serving', async () => {
      const fuzz = await startStoreServer({ backend });
      const count = async () => (await fuzz.readPlants()).length;
      const anyId = fc.oneof(
        fc.bigInt(-(2n ** 64n), 2n ** 64n),
        fc.bigInt(-5n, 5n),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string(),
        fc.boolean(),
        fc.constant(null),
      );
      const anyPlant = fc
        .record(
          { id: anyId, name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), tag: fc.option(fc.string()) },
          { requiredKeys: [] },
        )
        .map((record) => stringifyJsonExact(record));
      const anyBody = fc.oneof(
        anyPlant,
        fc.json(),
        fc.string(),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
      );
      try {
        await fc.assert(
          fc.asyncProperty(anyBody, async (body) => {
            const before = await count();
            const answer = await postPlant(fuzz.url, fuzz.token, body);
            expect([200, 400, 409]).toContain(answer.status);
            if (answer.status === 200) {
              expect(await count()).toBe(before + 1);
              const sent = parseJsonExact(body.toString()) as { id: unknown; name: string; tag?: string };
              const stored = parseJsonExact(answer.text) as { id: unknown; name: string; tag?: string };
              expect(BigInt(stored.id as bigint)).toBe(BigInt(sent.id as bigint));
              expect([stored.name, stored.tag]).toEqual([sent.name, sent.tag ?? undefined]);
            } else if (answer.status === 409) {
              // The Error record, and the plant stored under the sent id (an earlier 200 of this run).
              const sent = parseJsonExact(body.toString()) as { id: unknown };
              const { plant, ...error } = parseJsonExact(answer.text) as { plant: { id: unknown } };
              expect(error).toEqual({
                error: 409,
                message: `a plant with id ${BigInt(sent.id as bigint)} already exists`,
              });
              expect(BigInt(plant.id as bigint)).toBe(BigInt(sent.id as bigint));
              expect(await count()).toBe(before);
            } else {
              expectError(answer, answer.status);
              expect(await count()).toBe(before);
            }
          }),
          { numRuns: 150 },
        );
        expect((await send(`${fuzz.url}/healthz`)).status).toBe(200);
        expect(fuzz.internalErrors).toEqual([]);
      } finally {
        await fuzz.close();
      }
    }, 90_000);
  });

  describe('request log', () => {
    it('writes one line per request: method, path without query, status, milliseconds; never the token or body', async () => {
      const quiet = await startStoreServer({ backend });
      try {
        await postPlant(quiet.url, quiet.token, plantJson('1', 'SECRET-NAME'));
        await send(`${quiet.url}/openapi.json?access_token=${quiet.token}`);
        await postPlant(quiet.url, 'wrong-token-value', plantJson('2'));
        await send(`${quiet.url}/nope`);
        await waitUntil(() => quiet.logLines.length === 4, 2000, 'four log lines');
        expect(quiet.logLines).toHaveLength(4);
        for (const line of quiet.logLines) expect(line).toMatch(/^[A-Z]+ \/\S* \d{3} \d+\.\dms$/);
        expect(quiet.logLines.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
          'POST /plants 200',
          'GET /openapi.json 200',
          'POST /plants 401',
          'GET /nope 404',
        ]);
        const all = quiet.logLines.join('\n');
        expect(all).not.toContain(quiet.token);
        expect(all).not.toContain('wrong-token-value');
        expect(all).not.toContain('SECRET-NAME');
      } finally {
        await quiet.close();
      }
    });
  });

  describe('GET /openapi.json', () => {
    it('serves the contract without a token, with every status POST /plants was seen to answer', async () => {
      const answer = await send(`${server.url}/openapi.json`);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      const doc = JSON.parse(answer.text);
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info).toMatchObject({ title: 'Plant Store', version: '1.0.0', license: { name: 'MIT' } });
      expect(doc.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' } });
      expect(doc.security).toEqual([{ bearerAuth: [] }]);

      const post = doc.paths['/plants'].post;
      const declared = Object.keys(post.responses).map(Number);
      // This file runs in order; by now it has seen 200, 400, 401, 409, 413, 415 and 500.
      expect([...observedPostStatuses].sort()).toEqual([200, 400, 401, 409, 413, 415, 500]);
      for (const status of observedPostStatuses) expect(declared).toContain(status);
      expect(post.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/StoredPlant',
      });
      expect(JSON.stringify(doc.components.schemas.StoredPlant)).toContain('"required":["id"]');
      expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/NewPlant' });

      // Every error answer the server gives anywhere has a declared response with the Error body.
      for (const [status, name] of [
        [400, 'BadRequest'],
        [401, 'Unauthorized'],
        [404, 'NotFound'],
        [405, 'MethodNotAllowed'],
        [408, 'RequestTimeout'],
        [413, 'PayloadTooLarge'],
        [415, 'UnsupportedMediaType'],
        [431, 'RequestHeaderFieldsTooLarge'],
        [500, 'InternalServerError'],
      ] as const) {
        expect(doc.components.responses[name].content['application/json'].schema, String(status)).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
      // 409: the Error body with the stored plant beside it.
      expect(doc.components.responses.Conflict.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ConflictError',
      });
      expect(doc.components.schemas.ConflictError.allOf).toEqual([
        { $ref: '#/components/schemas/Error' },
        { type: 'object', properties: { plant: { $ref: '#/components/schemas/StoredPlant' } } },
      ]);
      for (const ref of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)) {
        expect(doc.components[ref[1] as string][ref[2] as string], ref[0]).toBeDefined();
      }
      expect(doc.paths['/healthz'].get.security).toEqual([]);
      expect(doc.paths['/openapi.json'].get.security).toEqual([]);
      // The limits and the outcome the schema module enforces, as the document states them.
      const { name, tag } = doc.components.schemas.Plant.properties;
      expect([name.maxLength, tag.maxLength]).toEqual([MAX_TEXT_LENGTH, MAX_TEXT_LENGTH]);
      expect(doc.components.schemas.Error.properties.outcome.enum).toEqual([OUTCOME_UNKNOWN]);
    });
  });
});
