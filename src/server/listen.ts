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

/** A server that listens and holds its connections, before and after it has an app to hand requests to. */
export type Listening = Awaited<ReturnType<typeof listen>>;

type ListenOptions = Pick<
  PlantServerOptions,
  'host' | 'port' | 'tls' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
>;

/**
 * The first step of a start: takes the port, before the store is opened, so that a port in use
 * never creates or touches a database file. A request that comes in before `serve` waits for it
 * (it is not reported as listening yet, so only a port scan could send one). Throws ListenError.
 */
export async function listen(options: ListenOptions) {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  /**
   * Open connections: at close, the one request each is working on is told to end its
   * connection. Tracked per connection rather than per request, to keep the request path light.
   */
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
    // Node checks the two time-outs above only every connectionsCheckingInterval (30 s by
    // default), so a slow client would outlive a 10 s headersTimeout by up to 30 s.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const listener: http.RequestListener = (req, res) => {
    // Once closing, finish this request and let its connection go instead of keeping it alive;
    // a request read behind a connection's last answer is not carried out.
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
          // node's default handshake timeout is 120 s: long enough for anyone who can connect
          // to hold every file descriptor the server has. A handshake gets what headers get.
          { ...serverOptions, handshakeTimeout: headersTimeout, cert: options.tls.cert, key: options.tls.key },
          listener,
        );
  // Expect: 100-continue comes to the app too, which sends 100 Continue only once the token and
  // the headers are found good (node would send it at once, before any check).
  server.on('checkContinue', listener);
  const closeUnused = trackConnections(server, tls, connections);
  // server.close() calls this once, the sweep at close again: a connection is idle once it owes no answer.
  server.closeIdleConnections = () => {
    for (const socket of connections) closeIfIdle(socket);
  };
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // node:https reports a failed or timed-out handshake as a clientError too. There is no
    // HTTP on such a socket: an answer written into it waits for a handshake that never comes,
    // and the socket with it, for ever. Whatever failed TLS is destroyed, never answered.
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
    /**
     * Hands every request to `app` from now on, those that came in before it included; reports a
     * failure to accept (EMFILE when out of file descriptors) to `onError` and serves on.
     */
    serve(handler: http.RequestListener, onError: (error: unknown) => void): void {
      app = handler;
      served.resolve();
      // After listening, a server 'error' is an accept failure: unhandled, it would crash.
      server.on('error', onError);
    },
    /**
     * Stops accepting, lets requests in flight finish (at most `closeTimeoutMs`), then cuts the
     * connections left; resolves once the server is closed.
     */
    close(closeTimeoutMs: number): Promise<void> {
      closing = true;
      for (const socket of connections) closeAfterAnswer(socket);
      closed ??= new Promise<void>((resolve) => {
        // server.close() closes idle keep-alive connections once; those that finish their
        // request later would otherwise linger for keepAliveTimeout.
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
    /** Closes at once, cutting every connection, and the requests waiting for an app with them. */
    abort(): Promise<void> {
      served.reject(new Error('the server did not start'));
      server.closeAllConnections();
      closed ??= stopped();
      return closed;
    },
  };
}

/**
 * Keeps `connections` up to date, and returns what closes those that have not begun a request.
 * Bytes each connection had read when it was accepted (a TLS one: once its handshake was done)
 * are kept until its first request: a connection that has read nothing more has no request in
 * flight, and is closed at once when the server stops. node counts such a connection as busy
 * (its headers time-out runs from the connection), so closeIdleConnections() leaves it to the
 * deadline: a browser's or a pool's connection opened ahead would hold the stop for seconds.
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

/** An error raised by TLS (OpenSSL's, with its `library`, or node's own ERR_TLS_* and ERR_SSL_*). */
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

/** What a failure to listen means, by its code; any other is told in the system's words. */
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
