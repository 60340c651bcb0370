import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import path from 'node:path';
import { projectRoot } from './cli.js';
import { type FixtureScope, suiteFixture } from './fixture.js';
import { freePort } from './ports.js';

/** Every way a store can fail a client, one server (or address) each. */
export interface FailureServers {
  /** A loopback port nobody listens on. */
  refused: string;
  /** The same port on IPv6's loopback, [::1]. */
  refusedIpv6: string;
  /** Accepts the connection and the request, and never answers. */
  silent: string;
  /** A host name that cannot resolve (RFC 6761 reserves .invalid). */
  unresolvable: string;
  /** https:// to a plain-HTTP server. */
  tlsToPlain: string;
  /** A TLS server whose certificate is self-signed (not trusted by the client). */
  untrustedTls: string;
  /** http:// to that TLS server. */
  plainToTls: string;
  /** Plain HTTP, answering every request as the path's first segment says: /{status}/{kind}/plants… */
  scripted(kind: ScriptedAnswer): string;
  close(): Promise<void>;
}

/** The answers `scripted` can give, whatever the method and path after it. */
export const scriptedAnswers = {
  unauthorized: { status: 401, type: 'application/json', body: '{"error":401,"message":"invalid token"}' },
  forbidden: { status: 403, type: 'application/json', body: '{"error":403,"message":"not allowed"}' },
  'not-found': { status: 404, type: 'application/json', body: '{"error":404,"message":"no such plant"}' },
  conflict: {
    status: 409,
    type: 'application/json',
    body: '{"error":409,"message":"a plant with id 1 already exists"}',
  },
  'too-many': { status: 429, type: 'application/json', body: '{"error":429,"message":"slow down"}', retryAfter: '0' },
  unavailable: { status: 503, type: 'application/json', body: '{"error":503,"message":"draining"}', retryAfter: '0' },
  internal: { status: 500, type: 'application/json', body: '{"error":500,"message":"internal server error"}' },
  'proxy-html': {
    status: 502,
    type: 'text/html',
    body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
  },
  'wrong-shape': { status: 200, type: 'application/json', body: '{"unexpected":true}' },
  /** Declares 100 bytes, sends 9 and closes. */
  truncated: { status: 200, type: 'application/json', body: '{"name":"', contentLength: 100 },
} as const satisfies Record<
  string,
  { status: number; type: string; body: string; retryAfter?: string; contentLength?: number }
>;
export type ScriptedAnswer = keyof typeof scriptedAnswers;

function listen(server: HttpServer | NetServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );
}

function tracked(server: HttpServer | NetServer): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

function answer(request: IncomingMessage, response: ServerResponse): void {
  const kind = (request.url ?? '').split('/')[1] as ScriptedAnswer;
  const scripted: { status: number; type: string; body: string; retryAfter?: string; contentLength?: number } =
    scriptedAnswers[kind] ?? scriptedAnswers['not-found'];
  request.resume();
  request.on('end', () => {
    response.writeHead(scripted.status, {
      'content-type': scripted.type,
      'content-length': scripted.contentLength ?? Buffer.byteLength(scripted.body),
      ...(scripted.retryAfter === undefined ? {} : { 'retry-after': scripted.retryAfter }),
    });
    if (scripted.contentLength === undefined) {
      response.end(scripted.body);
      return;
    }
    response.write(scripted.body);
    setTimeout(() => response.socket?.destroy(), 20);
  });
}

/**
 * Starts one of each failing store on loopback ports: a scripted plain-HTTP server (its answer
 * chosen by the first path segment of the base URL, so one server serves every class), a
 * server that never answers, a TLS server with a self-signed certificate, and a port that
 * refuses.
 */
export async function startFailureServers(): Promise<FailureServers> {
  const scripted = createHttpServer(answer);
  const silent = createNetServer((socket) => socket.resume());
  const tls = createHttpsServer(
    {
      cert: readFileSync(path.join(projectRoot, 'test/server/fixtures/test-tls-cert.pem')),
      key: readFileSync(path.join(projectRoot, 'test/server/fixtures/test-tls-key.pem')),
    },
    (_request, response) => response.end('{}'),
  );
  const closers = [tracked(scripted), tracked(silent), tracked(tls)];
  // Refused: a port nobody listens on for the rest of the run (freePort's; the port of a server
  // just closed, the kernel may give to another test's server meanwhile).
  const [scriptedPort, silentPort, tlsPort, refusedPort] = await Promise.all([
    listen(scripted),
    listen(silent),
    listen(tls),
    freePort(),
  ]);
  return {
    refused: `http://127.0.0.1:${refusedPort}`,
    refusedIpv6: `http://[::1]:${refusedPort}`,
    silent: `http://127.0.0.1:${silentPort}`,
    unresolvable: 'https://plants-store.invalid',
    tlsToPlain: `https://127.0.0.1:${scriptedPort}/internal`,
    untrustedTls: `https://127.0.0.1:${tlsPort}`,
    plainToTls: `http://127.0.0.1:${tlsPort}`,
    scripted: (kind) => `http://127.0.0.1:${scriptedPort}/${kind}`,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}

/**
 * The failing stores (startFailureServers) for the tests of the file or describe it is declared
 * in, closed after them:
 *
 *   const servers = useFailureServers();
 */
export function useFailureServers(scope: FixtureScope = 'file'): FailureServers {
  return suiteFixture(scope, startFailureServers, (servers) => servers.close());
}
