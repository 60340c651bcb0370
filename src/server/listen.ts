import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ListenError } from './errors.js';
import { admitRequest, answerClientError, closeAfterAnswer, closeIfIdle } from './http/connection.js';
import { PAGE_PREFIX } from './page/page-path.js';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type PlantServerOptions,
} from './server-options.js';

export type Listening = Awaited<ReturnType<typeof listen>>;

type ListenOptions = Pick<
  PlantServerOptions,
  'host' | 'port' | 'tls' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
>;

/**
 * Takes the port before the store is opened, so that a port in use never creates or touches a database file.
 * A request that comes in before `serve` waits for it.
 */
export async function listen(options: ListenOptions) {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  /** Per connection rather than per request, to keep the request path light. */
  const connections = new Set<Duplex>();
  let app: http.RequestListener | undefined;
  let served!: { resolve(): void; reject(error: unknown): void };
  const ready = new Promise<void>((resolve, reject) => {
    served = { resolve, reject };
  });
  ready.catch(() => undefined);
  let closing = false;
  const serverOptions: http.ServerOptions = {
    headersTimeout,
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the time-outs only every connectionsCheckingInterval (30 s by default).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const listener: http.RequestListener = (req, res) => {
    if (!admitRequest(req, res, closing)) return;
    if (app !== undefined) app(req, res);
    else
      void ready.then(
        () => app?.(req, res) ?? res.destroy(),
        () => res.destroy(),
      );
  };
  const tls = options.tls !== undefined;
  const server =
    options.tls === undefined
      ? http.createServer(serverOptions, listener)
      : https.createServer(
          // node's default of 120 s lets anyone who can connect hold every file descriptor the server has.
          { ...serverOptions, handshakeTimeout: headersTimeout, cert: options.tls.cert, key: options.tls.key },
          listener,
        );
  // The app sends 100 Continue only once the token and headers are good (node would send it before any check).
  server.on('checkContinue', listener);
  const closeUnused = trackConnections(server, tls, connections);
  // server.close() calls this once, the sweep at close again: a connection is idle once it owes no answer.
  server.closeIdleConnections = () => {
    for (const socket of connections) closeIfIdle(socket);
  };
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // A failed handshake is a clientError too: an answer written into it would wait for ever for a handshake.
    if (tls && (!connections.has(socket) || isTlsFailure(error))) socket.destroy();
    else answerClientError(error, socket);
  });

  await listenOn(server, options.host, options.port);
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  let closed: Promise<void> | undefined;
  const stopped = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url,
    pageUrl: `${url}${PAGE_PREFIX}`,
    port,
    connectionCount: () => connections.size,
    /** Those that came in before included; `onError` hears of a failure to accept (EMFILE), and it serves on. */
    serve(handler: http.RequestListener, onError: (error: unknown) => void): void {
      app = handler;
      served.resolve();
      // After listening, a server 'error' is an accept failure: unhandled, it would crash.
      server.on('error', onError);
    },
    close(closeTimeoutMs: number): Promise<void> {
      closing = true;
      for (const socket of connections) closeAfterAnswer(socket);
      closed ??= new Promise<void>((resolve) => {
        // server.close() closes idle connections once; later ones would linger for keepAliveTimeout.
        closeUnused();
        const idleSweep = setInterval(() => {
          server.closeIdleConnections();
          closeUnused();
        }, 25);
        const deadline = setTimeout(() => server.closeAllConnections(), closeTimeoutMs);
        server.close(() => {
          clearInterval(idleSweep);
          clearTimeout(deadline);
          resolve();
        });
      });
      return closed;
    },
    abort(): Promise<void> {
      served.reject(new Error('the server did not start'));
      server.closeAllConnections();
      closed ??= stopped();
      return closed;
    },
  };
}

/**
 * Returns what closes the connections that have not begun a request (read nothing since accepted). node counts
 * them busy and leaves them to the deadline: a browser's or a pool's connection opened ahead would hold the stop.
 */
function trackConnections(server: http.Server, tls: boolean, connections: Set<Duplex>): () => void {
  const unused = new WeakMap<Duplex, number>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Duplex) => {
    connections.add(socket);
    unused.set(socket, (socket as Socket).bytesRead);
    socket.once('close', () => connections.delete(socket));
  });
  const used = (req: http.IncomingMessage) => unused.delete(req.socket);
  server.on('request', used);
  server.on('checkContinue', used);
  return () => {
    for (const socket of connections) {
      const atAccept = unused.get(socket);
      if (atAccept !== undefined && (socket as Socket).bytesRead === atAccept) socket.destroy();
    }
  };
}

/** OpenSSL's errors have a `library`. */
function isTlsFailure(error: Error & { code?: string; library?: string }): boolean {
  return (
    error.library !== undefined ||
    error.code?.startsWith('ERR_TLS_') === true ||
    error.code?.startsWith('ERR_SSL_') === true
  );
}

function listenOn(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(describeListenFailure(error, host, port));
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

const LISTEN_FAILURES = new Map([
  ['EADDRINUSE', 'the port is already in use'],
  ['EACCES', 'permission denied (ports below 1024 need privileges)'],
  ['EADDRNOTAVAIL', 'this machine has no such address'],
  ['ENOTFOUND', 'the host name does not resolve'],
  ['EAI_AGAIN', 'the host name does not resolve'],
]);

function describeListenFailure(error: NodeJS.ErrnoException, host: string, port: number): ListenError {
  const why = LISTEN_FAILURES.get(error.code ?? '') ?? error.message.replace(/\s+/g, ' ');
  return new ListenError(`cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${why}`, {
    cause: error,
    hints:
      error.code === 'EADDRINUSE' ? ['Stop the other server, or choose another port (port 0 picks a free one).'] : [],
  });
}
