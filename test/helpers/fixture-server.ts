import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type FixtureScope, suiteFixture } from './fixture.js';

/** One request as the fixture server saw it, body as raw text (so int64 digits can be checked). */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FixtureHandler = (request: RecordedRequest, response: ServerResponse) => void;

export interface FixtureServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the server answers from now on. */
  respond(handler: FixtureHandler): void;
  close(): Promise<void>;
}

/** Answers every request with this status, content type and body text. */
export function reply(status: number, body: string, contentType = 'application/json'): FixtureHandler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
}

/**
 * A scripted HTTP server on a loopback port for client tests: it records every request and
 * answers however the test says (any status, content type or broken body). Not a plant store:
 * that is `plants serve`, in store-server.ts.
 */
export async function startFixtureServer(handler: FixtureHandler = reply(200, '{}')): Promise<FixtureServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      current(recorded, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A scripted server (startFixtureServer) for the tests of the file or describe it is declared in,
 * closed after them: `const server = useFixtureServer(reply(200, '{}'))`.
 */
export function useFixtureServer(handler?: FixtureHandler, scope: FixtureScope = 'file'): FixtureServer {
  return suiteFixture(
    scope,
    () => startFixtureServer(handler),
    (server) => server.close(),
  );
}
