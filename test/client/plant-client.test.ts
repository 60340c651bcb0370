import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthRejectedError,
  CrossOriginPageError,
  ResponseError,
  UnexpectedBodyError,
  UnreachableError,
} from '../../src/client/errors.js';
import { PlantClient } from '../../src/client/plant-client.js';
import { parseRetryAfter } from '../../src/client/retry-policy.js';
import { createDirectAgent } from '../../src/client/undici-agent.js';
import type { NewPlant } from '../../src/schema/plant.js';
import { type FixtureServer, reply, startFixtureServer } from '../helpers/fixture-server.js';

let server: FixtureServer;
let agent: Dispatcher;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

const fern: NewPlant = { id: 9223372036854775807n, name: 'Fern', tag: 'herb' };

function clientFor(url: string, overrides: { token?: string | undefined; timeoutMs?: number } = {}) {
  return new PlantClient({
    baseUrl: new URL(url),
    token: 'token' in overrides ? overrides.token : 'secret-token',
    dispatcher: agent,
    userAgent: 'plants/test',
    timeoutMs: overrides.timeoutMs ?? 5000,
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

describe('PlantClient.addPlant over the direct agent', () => {
  beforeAll(() => {
    agent = createDirectAgent({ connections: 8 });
  });
  afterAll(async () => {
    await agent.close();
  });

  it('sends the NewPlant with exact int64 digits and the declared headers', async () => {
    server.respond(reply(200, '{"name":"Fern","tag":"herb"}'));
    const added = await clientFor(server.url).addPlant(fern);
    expect(added.plant).toEqual({ name: 'Fern', tag: 'herb' });
    expect(added.rawBody).toBe('{"name":"Fern","tag":"herb"}');
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/plants');
    expect(request?.body).toBe('{"id":9223372036854775807,"name":"Fern","tag":"herb"}');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer secret-token');
    expect(request?.headers['user-agent']).toBe('plants/test');
  });

  it('keeps a base URL path: {base_url}/plants', async () => {
    server.respond(reply(200, '{"name":"Fern"}'));
    await clientFor(`${server.url}/v1/`).addPlant(fern);
    expect(server.requests[0]?.url).toBe('/v1/plants');
  });

  it('sends no Authorization header without a token, and reports the 401 as an auth failure', async () => {
    server.respond(reply(401, '{"title":"Unauthorized","status":401}', 'application/problem+json'));
    const error = await failure(clientFor(server.url, { token: undefined }).addPlant(fern));
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(error).toBeInstanceOf(AuthRejectedError);
    expect((error as AuthRejectedError).exitCode).toBe(4);
    expect(error.message).toBe('the server answered 401: Unauthorized');
    expect((error as AuthRejectedError).rawBody).toBe('{"title":"Unauthorized","status":401}');
    // No token was sent: the CLI words that as "No token is stored" (test/cli/render/failure-hints.test.ts).
    expect((error as AuthRejectedError).tokenSource).toBeUndefined();
    expect((error as AuthRejectedError).baseUrl.href).toBe(new URL(server.url).href);
  });

  it('reads an Error body on 400 exactly', async () => {
    server.respond(reply(400, '{"error":400,"message":"name: is required"}'));
    const error = (await failure(clientFor(server.url).addPlant(fern))) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.exitCode).toBe(1);
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ error: 400, message: 'name: is required' });
    expect(error.rawBody).toBe('{"error":400,"message":"name: is required"}');
    expect(error.message).toBe('the server answered 400: name: is required');
  });

  it('treats 403 like 401: exit 4', async () => {
    server.respond(reply(403, '{"error":403,"message":"forbidden"}'));
    const error = await failure(clientFor(server.url).addPlant(fern));
    expect(error).toBeInstanceOf(AuthRejectedError);
    expect((error as AuthRejectedError).exitCode).toBe(4);
  });

  it.each([
    [
      502,
      '<html><body>Bad gateway</body></html>',
      'text/html',
      'the server answered 502 with a text/html body instead of an Error',
    ],
    [500, '', 'application/json', 'the server answered 500 with an empty body instead of an Error'],
    [409, '{"error":409,"mess', 'application/json', 'not valid JSON (possibly truncated)'],
    [200, '{"nome":"Fern"}', 'application/json', 'the server answered 200 but JSON that is not a Plant'],
    [200, '', 'application/json', 'the server answered 200 but an empty body instead of a Plant'],
    [200, 'OK', 'text/plain', 'the server answered 200 but a text/plain body instead of a Plant: OK'],
    [200, '{"name":"Fe', 'application/json', 'the server answered 200 but a body that is not valid JSON'],
  ])('reports a %i with %j (%s) clearly', async (status, body, type, message) => {
    server.respond(reply(status, body, type));
    const error = (await failure(clientFor(server.url).addPlant(fern))) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(message);
    expect(error.body.error).toBe(status);
    expect(error.rawBody).toBeUndefined();
  });

  it('reports a 200 whose body is not a Plant as UnexpectedBodyError, naming what came instead', async () => {
    server.respond(reply(200, '{"nome":"Fern"}'));
    const error = (await failure(clientFor(server.url).addPlant(fern))) as UnexpectedBodyError;
    expect(error).toBeInstanceOf(UnexpectedBodyError);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.expected).toBe('a Plant');
    expect(error.received).toBe('JSON that is not a Plant: {"nome":"Fern"}');
    expect(error.message).toBe('the server answered 200 but JSON that is not a Plant: {"nome":"Fern"}');
    expect(error.body).toEqual({
      error: 200,
      message: 'response is not a Plant: JSON that is not a Plant: {"nome":"Fern"}',
    });
  });

  it('does not follow a next page on another origin (CrossOriginPageError)', async () => {
    server.respond((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        link: '<http://127.0.0.2:9/plants?after=1>; rel="next"',
      });
      response.end('[]');
    });
    const error = (await failure(clientFor(server.url).listPage({}))) as CrossOriginPageError;
    expect(error).toBeInstanceOf(CrossOriginPageError);
    expect(error.nextOrigin).toBe('http://127.0.0.2:9');
    expect(error.message).toBe("the server's next page is on another origin (http://127.0.0.2:9); not following it");
    expect(error.exitCode).toBe(1);
  });

  it('reports a page that is not a list of plants as UnexpectedBodyError', async () => {
    server.respond(reply(200, '{"plants":[]}'));
    const error = (await failure(clientFor(server.url).listPage({}))) as UnexpectedBodyError;
    expect(error).toBeInstanceOf(UnexpectedBodyError);
    expect(error.expected).toBe('a list of plants');
    expect(error.message).toBe('the server answered 200 but JSON that is not a list of plants: {"plants":[]}');
  });

  it('is unreachable (exit 3) when nothing listens, naming the URL', async () => {
    const closed = await startFixtureServer();
    const url = closed.url;
    await closed.close();
    const error = await failure(clientFor(url).addPlant(fern));
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as UnreachableError).exitCode).toBe(3);
    expect(error.message).toBe(`cannot reach ${url}: connection refused`);
  });

  describe('retries', () => {
    const retry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2000 };

    it('sends again after the connection drops before any answer, and says so on a 409', async () => {
      let calls = 0;
      server.respond((request, response) => {
        calls++;
        if (calls === 1) {
          response.socket?.destroy();
          return;
        }
        reply(409, '{"error":409,"message":"a plant with id 1 already exists"}')(request, response);
      });
      const error = (await failure(clientFor(server.url).addPlant(fern, { retry }))) as ResponseError;
      expect(calls).toBe(2);
      expect(error.status).toBe(409);
      expect(error.attempts).toBe(2);
      expect(error.message).toContain('after a retry: the first attempt may have added it');
    });

    it('waits out a 429 or 503 with Retry-After, then succeeds', async () => {
      let calls = 0;
      server.respond((request, response) => {
        calls++;
        if (calls <= 2) {
          response.writeHead(calls === 1 ? 429 : 503, { 'retry-after': '0', 'content-type': 'application/json' });
          response.end('{"error":503,"message":"busy"}');
          return;
        }
        reply(200, '{"name":"Fern"}')(request, response);
      });
      const added = await clientFor(server.url).addPlant(fern, { retry });
      expect(added.attempts).toBe(3);
      expect(calls).toBe(3);
    });

    it('does not retry a 503 without Retry-After, a Retry-After beyond the limit, or without a policy', async () => {
      server.respond((_request, response) => {
        response.writeHead(503, { 'content-type': 'application/json' });
        response.end('{"error":503,"message":"down"}');
      });
      expect(((await failure(clientFor(server.url).addPlant(fern, { retry }))) as ResponseError).attempts).toBe(1);
      server.respond((_request, response) => {
        response.writeHead(503, { 'retry-after': '3600', 'content-type': 'application/json' });
        response.end('{"error":503,"message":"down"}');
      });
      expect(((await failure(clientFor(server.url).addPlant(fern, { retry }))) as ResponseError).attempts).toBe(1);
      server.requests.length = 0;
      server.respond((_request, response) => response.socket?.destroy());
      const error = (await failure(clientFor(server.url).addPlant(fern))) as UnreachableError;
      expect(error).toBeInstanceOf(UnreachableError);
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after the last attempt with exit 3 and the count', async () => {
      server.respond((_request, response) => response.socket?.destroy());
      const error = (await failure(clientFor(server.url).addPlant(fern, { retry }))) as UnreachableError;
      expect(error).toBeInstanceOf(UnreachableError);
      expect(error.attempts).toBe(3);
      expect(server.requests).toHaveLength(3);
    });
  });

  describe('servers that misbehave at the socket level', () => {
    let raw: NetServer;
    let rawUrl: string;
    let behaviour: 'silent' | 'reset-mid-body' = 'silent';
    beforeAll(async () => {
      raw = createNetServer((socket) => {
        socket.on('error', () => {});
        socket.once('data', () => {
          if (behaviour === 'reset-mid-body') {
            socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":');
            setTimeout(() => socket.resetAndDestroy(), 20);
          }
          // 'silent': accept the request and never answer.
        });
      });
      await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
      const address = raw.address();
      rawUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    });
    afterAll(() => new Promise<void>((resolve) => raw.close(() => resolve())));

    it('gives up after the time-out with exit 3, saying it timed out', async () => {
      behaviour = 'silent';
      const error = (await failure(clientFor(rawUrl, { timeoutMs: 300 }).addPlant(fern))) as UnreachableError;
      expect(error).toBeInstanceOf(UnreachableError);
      expect(error.message).toBe(`no answer from ${rawUrl} within 0.3 s`);
      expect(error.failure).toEqual({ kind: 'timeout', timeoutMs: 300 });
    });

    it('reports a reset in the middle of the answer as exit 3', async () => {
      behaviour = 'reset-mid-body';
      const error = (await failure(clientFor(rawUrl).addPlant(fern))) as UnreachableError;
      expect(error).toBeInstanceOf(UnreachableError);
      expect(error.exitCode).toBe(3);
      expect(error.message).toContain(`cannot reach ${rawUrl}`);
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});
