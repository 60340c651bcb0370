import { createServer, type Server, type Socket } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PipeliningDispatcher } from '../../src/client/pipelining-dispatcher.js';
import { createProxyAgent } from '../../src/client/undici-agent.js';
import { startFixtureServer } from '../helpers/fixture-server.js';

/** What one request's handler was told, as undici's handler callbacks tell it. */
interface Told {
  sends: number;
  status?: number;
  headers?: string[];
  body: string;
  completed: boolean;
  error?: Error & { code?: string };
  settled: Promise<void>;
  abort?: (error?: Error) => void;
}

function recorder(): { handler: Dispatcher.DispatchHandler; told: Told } {
  let settle: () => void = () => {};
  const told: Told = { sends: 0, body: '', completed: false, settled: new Promise((resolve) => (settle = resolve)) };
  // Kept as given and read at the end, as the client's AnswerCollector does: a chunk must stay
  // the handler's after later reads.
  const chunks: Buffer[] = [];
  const handler = {
    onConnect(abort: (error?: Error) => void) {
      told.sends++;
      told.abort = abort;
    },
    onHeaders(status: number, headers: string[]) {
      told.status = status;
      told.headers = headers;
      return true;
    },
    onData(chunk: Buffer) {
      chunks.push(chunk);
      return true;
    },
    onComplete() {
      told.body = Buffer.concat(chunks).toString('utf8');
      told.completed = true;
      settle();
    },
    onError(error: Error) {
      told.body = Buffer.concat(chunks).toString('utf8');
      told.error = error;
      settle();
    },
  };
  return { handler: handler as unknown as Dispatcher.DispatchHandler, told };
}

/**
 * A TCP server that reads requests (each a head and a content-length body) and answers as
 * `answer` says, given the connection's index and the request's index on it: the raw text to
 * write back (ending the connection after it when it says `connection: close`), or 'close'
 * (end the connection, unanswered), or undefined (no answer yet).
 */
async function startRawServer(
  answer: (connection: number, request: number, body: string) => string | 'close' | undefined,
) {
  const sockets = new Set<Socket>();
  const received: { connection: number; head: string; body: string }[] = [];
  let connections = 0;
  const server: Server = createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    let requests = 0;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.toString('latin1', 0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const body = buffer.toString('utf8', end + 4, end + 4 + length);
        buffer = buffer.subarray(end + 4 + length);
        received.push({ connection, head, body });
        const reply = answer(connection, requests++, body);
        if (reply === 'close') {
          socket.destroy();
          return;
        }
        // An answer that says the connection closes: written, and the connection ended.
        if (reply !== undefined && /\r\nconnection: close\r\n/i.test(reply)) {
          socket.end(reply);
          return;
        }
        if (reply !== undefined) socket.write(reply);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    /** Connections open on the server's side. */
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const ok = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

let dispatcher: PipeliningDispatcher | undefined;
let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await dispatcher?.destroy();
  await closeServer?.();
  dispatcher = closeServer = undefined;
});

/** A GET, which goes to the fallback dispatcher. */
function get(origin: string): Told {
  return post(origin, '', { method: 'GET', body: undefined, idempotent: undefined, blocking: undefined });
}

/** A fallback that counts how many times it was made. */
function countedFallback(): { made: number; fallback: () => Promise<Dispatcher> } {
  const counted = {
    made: 0,
    fallback: async () => {
      counted.made++;
      return new Agent();
    },
  };
  return counted;
}

function post(origin: string, body: string, extra: Partial<Dispatcher.DispatchOptions> = {}): Told {
  const { handler, told } = recorder();
  dispatcher?.dispatch(
    {
      origin,
      path: '/plants',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body,
      idempotent: true,
      blocking: false,
      ...extra,
    },
    handler,
  );
  return told;
}

/**
 * Posts a plant for each id, through a dispatcher of `connections`, to a raw server answering as
 * `answer` says (see startRawServer); once each is settled, what it was told.
 */
async function postEach(answer: Parameters<typeof startRawServer>[0], ids: number[], connections = 8) {
  const server = await startRawServer(answer);
  closeServer = server.close;
  dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections });
  const told = ids.map((id) => post(server.origin, `{"id":${id},"name":"x"}`));
  await Promise.all(told.map((one) => one.settled));
  return { server, told };
}

describe('PipeliningDispatcher', () => {
  it('pipelines requests on one connection and gives each its own answer, whatever the framing', async () => {
    const server = await startRawServer((_connection, request, body) => {
      if (request === 0) return ok(body);
      if (request === 1)
        return `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n${body.slice(0, 3)}\r\n${(Buffer.byteLength(body) - 3).toString(16)}\r\n${body.slice(3)}\r\n0\r\n\r\n`;
      return `HTTP/1.1 201 Created\r\nconnection: close\r\n\r\n${body}`;
    });
    closeServer = server.close;
    dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 8 });
    const bodies = ['{"id":1,"name":"a"}', '{"id":2,"name":"b"}', '{"id":3,"name":"Grüße ☘"}'];
    const told = bodies.map((body) => post(server.origin, body));
    await Promise.all(told.map((one) => one.settled));
    expect(told.map(({ status, body, completed, sends }) => ({ status, body, completed, sends }))).toEqual([
      { status: 200, body: bodies[0], completed: true, sends: 1 },
      { status: 200, body: bodies[1], completed: true, sends: 1 },
      { status: 201, body: bodies[2], completed: true, sends: 1 },
    ]);
    // One connection, three requests, each with the length of its body in bytes (UTF-8).
    expect(server.received.map(({ connection }) => connection)).toEqual([0, 0, 0]);
    expect(server.received.map(({ body }) => body)).toEqual(bodies);
    expect(server.received[2]?.head).toContain(`content-length: ${Buffer.byteLength(bodies[2] as string)}`);
    expect(server.received[0]?.head).toMatch(
      /^POST \/plants HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\ncontent-type: application\/json\r\nauthorization: Bearer t\r\n/,
    );
  });

  it('gives each handler chunks of its own: answers read a few bytes at a time stay whole', async () => {
    const bodies = [`{"id":1,"name":"${'a'.repeat(200)}"}`, `{"id":2,"name":"${'b'.repeat(200)}"}`];
    const answers = bodies.map(ok).join('');
    const first = ok(bodies[0] as string).length;
    const firstHead = ok(bodies[0] as string).indexOf('\r\n\r\n') + 4;
    // Each piece is a read of its own, into the memory the one before was read into: the first
    // head whole with a part of its body, the rest of that body and a part of the second head,
    // and the rest in two.
    const cuts = [firstHead + 10, first + 20, answers.length - 25, answers.length];
    const server = createServer((socket) => {
      let seen = '';
      socket.on('data', async (chunk: Buffer) => {
        seen += chunk.toString('latin1');
        if (seen.split('{"id":').length - 1 < bodies.length || !seen.endsWith('}')) return;
        let from = 0;
        for (const cut of cuts) {
          socket.write(answers.slice(from, cut));
          from = cut;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 8 });
    const told = bodies.map((body) => post(origin, body));
    await Promise.all(told.map((one) => one.settled));
    expect(told.map(({ status, body }) => ({ status, body }))).toEqual(bodies.map((body) => ({ status: 200, body })));
    await dispatcher.destroy();
  });

  it('writes again, on a new connection, the requests behind an answer that closes the connection, counting the send', async () => {
    const { told } = await postEach(
      (connection, request, body) =>
        connection === 0 && request === 0
          ? `HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`
          : connection === 0
            ? undefined
            : ok(body),
      [1, 2, 3],
    );
    expect(told.map(({ status, sends }) => ({ status, sends }))).toEqual([
      { status: 200, sends: 1 },
      { status: 200, sends: 2 },
      { status: 200, sends: 2 },
    ]);
  });

  it('fails the head of the pipeline when the connection drops unanswered, and writes the rest again', async () => {
    const { told } = await postEach(
      (connection, request, body) => (connection === 0 ? (request === 2 ? 'close' : undefined) : ok(body)),
      [1, 2, 3],
    );
    expect(told[0]?.error?.code).toBe('UND_ERR_SOCKET');
    expect(told[0]?.sends).toBe(1);
    expect(told.slice(1).map(({ status, sends }) => ({ status, sends }))).toEqual([
      { status: 200, sends: 2 },
      { status: 200, sends: 2 },
    ]);
  });

  it('fails the answer that breaks the protocol, and writes the rest again', async () => {
    const { told } = await postEach(
      (connection, request, body) =>
        connection === 0 ? (request === 1 ? 'HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n' : undefined) : ok(body),
      [1, 2],
    );
    expect(told[0]?.error?.code).toBe('HPE_INVALID_CONTENT_LENGTH');
    expect(told[1]?.status).toBe(200);
  });

  it('fails every request waiting for a connection that is refused', async () => {
    const server = await startRawServer(() => undefined);
    const origin = server.origin;
    await server.close();
    dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 1 });
    const told = [1, 2, 3].map((id) => post(origin, `{"id":${id},"name":"x"}`));
    await Promise.all(told.map((one) => one.settled));
    expect(told.map(({ error, sends }) => ({ code: error?.code, sends }))).toEqual([
      { code: 'ECONNREFUSED', sends: 0 },
      { code: 'ECONNREFUSED', sends: 0 },
      { code: 'ECONNREFUSED', sends: 0 },
    ]);
  });

  it('fails an aborted request and writes the others on its connection again', async () => {
    let answering = false;
    const server = await startRawServer((_connection, _request, body) => (answering ? ok(body) : undefined));
    closeServer = server.close;
    dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 8 });
    const told = [1, 2].map((id) => post(server.origin, `{"id":${id},"name":"x"}`));
    await expect.poll(() => server.received.length).toBe(2);
    answering = true;
    told[0]?.abort?.(new Error('too slow'));
    await Promise.all(told.map((one) => one.settled));
    expect(told[0]?.error?.message).toBe('too slow');
    expect(told[1]?.status).toBe(200);
    expect(told[1]?.sends).toBe(2);
  });

  it('keeps at most PIPELINING requests on a connection, and opens no more connections than given', async () => {
    const { server, told } = await postEach(
      (_connection, _request, body) => ok(body),
      Array.from({ length: 40 }, (_, id) => id),
      16,
    );
    expect(told.every((one) => one.status === 200 && one.sends === 1)).toBe(true);
    expect(new Set(server.received.map(({ connection }) => connection)).size).toBe(2);
  });

  it('sends other requests (not marked as safe to pipeline) through the fallback dispatcher', async () => {
    const fixture = await startFixtureServer();
    closeServer = fixture.close;
    let fallbackDispatches = 0;
    const fallback = new Agent();
    const dispatch = fallback.dispatch.bind(fallback);
    fallback.dispatch = (options, handler) => {
      fallbackDispatches++;
      return dispatch(options, handler);
    };
    dispatcher = new PipeliningDispatcher({ fallback: async () => fallback, connections: 8 });
    const answer = get(fixture.url);
    const retry = post(fixture.url, '{"id":1,"name":"x"}', { idempotent: undefined, blocking: undefined });
    await Promise.all([answer.settled, retry.settled]);
    expect(fallbackDispatches).toBe(2);
    expect(fixture.requests.map(({ method }) => method)).toEqual(['GET', 'POST']);
  });

  it('makes its fallback when the first request for it comes, and only once', async () => {
    const fixture = await startFixtureServer();
    closeServer = fixture.close;
    const counted = countedFallback();
    dispatcher = new PipeliningDispatcher({
      fallback: counted.fallback,
      connections: 8,
    });
    await post(fixture.url, '{"id":1,"name":"x"}').settled;
    expect(counted.made).toBe(0);
    const gets = [1, 2].map(() => get(fixture.url));
    await Promise.all(gets.map(({ settled }) => settled));
    expect([counted.made, ...gets.map(({ status }) => status)]).toEqual([1, 200, 200]);
  });

  it('fails the requests for a fallback that cannot be made with its error, and closes', async () => {
    const fixture = await startFixtureServer();
    closeServer = fixture.close;
    dispatcher = new PipeliningDispatcher({
      fallback: async () => {
        throw new Error('no undici here');
      },
      connections: 8,
    });
    const answer = get(fixture.url);
    const added = post(fixture.url, '{"id":1,"name":"x"}');
    await Promise.all([answer.settled, added.settled]);
    expect([answer.error?.message, added.status]).toEqual(['no undici here', 200]);
    await dispatcher.close();
    dispatcher = undefined;
  });

  it('does not make a fallback once closed: a request then fails as at a closed undici agent', async () => {
    const counted = countedFallback();
    dispatcher = new PipeliningDispatcher({
      fallback: counted.fallback,
      connections: 8,
    });
    await dispatcher.close();
    const answer = get('http://127.0.0.1:9');
    await answer.settled;
    expect([counted.made, answer.error?.code]).toEqual([0, 'UND_ERR_CLOSED']);
  });

  it('leaveIdleToExit: close() leaves an idle connection open to the exit; by default it closes it', async () => {
    for (const leaveIdleToExit of [false, true]) {
      const server = await startRawServer((_connection, _request, body) => ok(body));
      dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 8, leaveIdleToExit });
      const told = post(server.origin, '{"id":1,"name":"x"}');
      await told.settled;
      expect(server.openConnections()).toBe(1);
      await dispatcher.close();
      if (leaveIdleToExit) {
        // Time for the server to hear of a close, were there one.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(server.openConnections()).toBe(1);
        // Still the dispatcher's to end.
        await dispatcher.destroy();
      }
      await vi.waitFor(() => expect(server.openConnections()).toBe(0));
      await server.close();
    }
    dispatcher = undefined;
  });

  it('closes once the requests in flight are answered', async () => {
    const server = await startRawServer((_connection, _request, body) => ok(body));
    closeServer = server.close;
    dispatcher = new PipeliningDispatcher({ fallback: async () => new Agent(), connections: 8 });
    const told = post(server.origin, '{"id":1,"name":"x"}');
    await dispatcher.close();
    expect(told.status).toBe(200);
    dispatcher = undefined;
  });
});

describe('createProxyAgent', () => {
  it('sends the adds over its own connections when no proxy is set, and everything through undici when one is', async () => {
    const fixture = await startFixtureServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(request.body === '' ? '[]' : request.body);
    });
    closeServer = fixture.close;
    const direct = await createProxyAgent({ connections: 8, httpProxy: '', httpsProxy: '', noProxy: '' });
    const proxied = await createProxyAgent({
      connections: 8,
      httpProxy: 'http://127.0.0.1:9',
      httpsProxy: 'http://127.0.0.1:9',
      noProxy: '',
    });
    try {
      expect(direct).toBeInstanceOf(PipeliningDispatcher);
      expect(proxied).not.toBeInstanceOf(PipeliningDispatcher);
      const { handler, told } = recorder();
      direct.dispatch(
        {
          origin: fixture.url,
          path: '/plants',
          method: 'POST',
          headers: {},
          body: '{"id":1,"name":"x"}',
          idempotent: true,
          blocking: false,
        },
        handler,
      );
      const listed = recorder();
      direct.dispatch({ origin: fixture.url, path: '/plants', method: 'GET', headers: {} }, listed.handler);
      await Promise.all([told.settled, listed.told.settled]);
      expect([told.status, told.body, listed.told.status, listed.told.body]).toEqual([
        200,
        '{"id":1,"name":"x"}',
        200,
        '[]',
      ]);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });
});
