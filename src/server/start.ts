import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import { createPlantApp } from './app.js';
import { createCors } from './cors.js';
import { ListenError, ServerOptionsError } from './errors.js';
import { admitRequest, answerClientError, closeAfterAnswer, closeIfIdle } from './http/connection.js';
import type { RequestObserver } from './observability/request-record.js';
import {
  createServerLog,
  defaultInstanceName,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from './observability/server-log.js';
import type { ServerMetrics } from './observability/server-metrics.js';
import { PAGE_PREFIX } from './page/page-path.js';
import { createServePage, isPageOrProbe } from './page/serve-page.js';
import { isDatabaseServer, type OpenStoreOptions, openPlantStore } from './stores/open-store.js';
import type { PlantStore } from './stores/plant-store.js';
import type { Seed } from './test-double/seed.js';
import { createTestControls } from './test-double/test-controls.js';
import type { DelayRange, FaultRate } from './test-double/testing-options.js';

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** The store's four options are openPlantStore's (`plants serve` should default durability to 'full'). */
export interface PlantServerOptions
  extends Pick<OpenStoreOptions, 'database' | 'postgresEnv' | 'durability' | 'busyTimeoutMs'> {
  /** Address to listen on, e.g. `127.0.0.1` (choosing a default is the caller's business). */
  host: string;
  /** TCP port; 0 picks a free one (read it back from `port`). */
  port: number;
  /** Browser origins allowed to call the store (CORS), e.g. `http://localhost:5173`. Default: none. */
  corsOrigins?: readonly string[];
  /** Accepted bearer tokens: at least one, each a valid RFC 6750 b64token. */
  tokens: readonly string[];
  /**
   * Receives each log line, without its newline, and its level: one per request
   * (`POST /plants 200 1.3ms`, or a JSON object with logFormat `json`) and one per internal
   * error. Never a token or a body. Omitted: nothing is logged.
   */
  log?: (line: string, level: LogLevel) => void;
  /** `text` (default) or `json` (one object a line, from pino). */
  logFormat?: LogFormat;
  /** `info` (default): requests, probes left out; `debug`: probes too; `error`: internal errors only. */
  logLevel?: LogLevel;
  /** Names this server in JSON log lines. Default `host:pid`. */
  instance?: string;
  /** Receives the error behind each 500 (the client only gets "internal server error"), besides the log. */
  onInternalError?: (error: unknown) => void;
  /** Serve Prometheus metrics at GET /metrics. Default false. */
  metrics?: boolean;
  /**
   * A bearer token that may read /metrics besides the store's tokens. Without it, a client on
   * loopback reads /metrics with no token; with it, every scrape needs a token.
   */
  metricsToken?: string;
  /** Largest accepted request body; larger is 413. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * All request headers must arrive within this, or the client gets 408 and is cut. Default
   * 10 000. With TLS, the handshake must finish within this too, or the socket is destroyed.
   */
  headersTimeoutMs?: number;
  /** The whole request, headers and body, must arrive within this, or 408. Default 30 000. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. Default 5 000. */
  keepAliveTimeoutMs?: number;
  /** At close, requests in flight get this long to finish before their connections are cut. Default 10 000. */
  closeTimeoutMs?: number;
  /** Serve HTTPS (node:https) with this certificate chain and private key, PEM. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Plants put into the store before it serves (serve --seed; see test-double/seed.ts): a plant
   * stored already with other fields refuses the start (SeedConflictError, exit 2).
   */
  seed?: Seed;
  /** Serve POST /reset, which puts the store back to the seed (or empty). Default false. */
  allowReset?: boolean;
  /** Each answer of a plant route waits a uniform draw from this range (serve --delay). */
  delay?: DelayRange;
  /** Faults injected into plant requests (serve --fault); see test-double/plant-faults.ts. */
  faults?: readonly FaultRate[];
  /** Seeds the fault and delay draws (serve --fault-seed). Default 0. */
  faultSeed?: number;
  /** Bounds of the page's request journal (docs/serve-page.md). Default 1000 entries, 256 KiB. */
  journal?: { maxEntries?: number; maxBytes?: number };
}

export interface RunningPlantServer {
  /** Base URL of the store, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  /** The page's address, e.g. `http://127.0.0.1:4010/_serve/`. */
  pageUrl: string;
  port: number;
  /**
   * Stops accepting connections, lets requests in flight finish (at most closeTimeoutMs),
   * commits any queued plants and closes the database. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Listens, then opens the store. Throws ServerOptionsError or ListenError (both exit 2), or a
 * store's DatabaseOpenError or DatabaseConnectError, having released whatever it had taken.
 */
export async function startPlantServer(options: PlantServerOptions): Promise<RunningPlantServer> {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  checkOptions(options, headersTimeout, requestTimeout);

  /**
   * Open connections: at close, the one request each is working on is told to end its
   * connection. Tracked per connection rather than per request, to keep the request path light.
   */
  const connections = new Set<Duplex>();
  const log =
    options.log === undefined
      ? undefined
      : await createServerLog({
          format: options.logFormat ?? 'text',
          level: options.logLevel ?? 'info',
          instance: options.instance ?? defaultInstanceName(),
          write: options.log,
        });
  const onInternalError = (error: unknown): void => {
    options.onInternalError?.(error);
    log?.internalError(error);
  };
  // The metrics read the store, which reads nothing of the metrics until it commits: the store
  // is opened after them, and reached through this variable.
  let metrics: ServerMetrics | undefined;
  let checkStore: () => Promise<void> = () => Promise.resolve();
  if (options.metrics === true) {
    const { createServerMetrics } = await import('./observability/server-metrics.js');
    metrics = createServerMetrics({ checkStore: () => checkStore(), openConnections: () => connections.size });
  }

  // The port is taken before the store is opened: a port in use must not create or touch a
  // database file. A request that comes in between waits for the store (it is not reported
  // as listening, so only a port scan could send one).
  let app: http.RequestListener | undefined;
  let storeOpened: Promise<unknown> | undefined;

  let closing = false;
  const serverOptions: http.ServerOptions = {
    headersTimeout,
    requestTimeout,
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
      void storeOpened?.then(
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
  /**
   * Bytes each connection had read when it was accepted (a TLS one: once its handshake was done),
   * until its first request: a connection that has read nothing more has no request in flight,
   * and is closed at once when the server stops. node counts such a connection as busy (its
   * headers time-out runs from the connection), so closeIdleConnections() leaves it to the
   * deadline: a browser's or a pool's connection opened ahead would hold the stop for seconds.
   */
  const unused = new WeakMap<Duplex, number>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Duplex) => {
    connections.add(socket);
    unused.set(socket, (socket as Socket).bytesRead);
    socket.once('close', () => connections.delete(socket));
  });
  const used = (req: http.IncomingMessage) => unused.delete(req.socket);
  server.on('request', used);
  server.on('checkContinue', used);
  const closeUnused = () => {
    for (const socket of connections) {
      const atAccept = unused.get(socket);
      if (atAccept !== undefined && (socket as Socket).bytesRead === atAccept) socket.destroy();
    }
  };
  // server.close() calls this once, the sweep below again: a connection is idle once it owes no answer.
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

  await listen(server, options.host, options.port);
  const opening = openPlantStore({
    database: options.database,
    durability: options.durability,
    busyTimeoutMs: options.busyTimeoutMs,
    postgresEnv: options.postgresEnv,
    onCommit: metrics?.commit,
  });
  storeOpened = opening;
  let store: PlantStore | undefined;
  try {
    store = await opening;
    if (options.seed !== undefined) {
      const { applySeed } = await import('./test-double/seed.js');
      await applySeed(store, options.seed);
    }
  } catch (error) {
    await store?.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  const seedPlants = options.seed?.plants ?? [];
  // --allow-reset marks a store for tests: its delay and faults may then change while it serves.
  const testing = createTestControls({
    delay: options.delay,
    faults: options.faults,
    faultSeed: options.faultSeed ?? 0,
    editable: options.allowReset === true,
  });
  const page = createServePage({
    tokens: options.tokens,
    info: { instance: options.instance ?? defaultInstanceName(), store: storeKind(options.database) },
    controls: testing,
    journal: options.journal,
  });
  // The page's own requests (a stream, a poll every few seconds) are logged as probes are: at debug.
  const logRequest: RequestObserver | undefined =
    log === undefined
      ? undefined
      : (record) => log.request(!record.probe && isPageOrProbe(record) ? { ...record, probe: true } : record);
  checkStore = () => store.check();
  app = createPlantApp({
    store,
    tokens: options.tokens,
    observe: observerOf(logRequest, metrics?.request, page.observe),
    onStoreError: metrics?.storeError,
    metrics,
    metricsToken: options.metricsToken,
    onInternalError,
    maxBodyBytes: options.maxBodyBytes,
    corsOrigins: options.corsOrigins,
    reset: options.allowReset === true ? () => store.replaceAll(seedPlants) : undefined,
    interceptPlantRequest: testing.interceptor,
    extraRoutes: page.routes,
  });

  // After listening, a server 'error' is an accept failure (EMFILE when out of file
  // descriptors): report it, keep serving the connections there are; unhandled, it would crash.
  server.on('error', onInternalError);

  const port = (server.address() as AddressInfo).port;
  const scheme = tls ? 'https' : 'http';
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const closeTimeout = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  let closed: Promise<void> | undefined;

  return {
    url: `${scheme}://${host}:${port}`,
    pageUrl: `${scheme}://${host}:${port}${PAGE_PREFIX}`,
    port,
    close() {
      closing = true;
      // serve --fault stall: requests that will never be answered are not waited for.
      testing.dropStalled();
      // Open tabs' event streams would otherwise hold the stop for closeTimeoutMs.
      page.close();
      for (const socket of connections) closeAfterAnswer(socket);
      closed ??= new Promise<void>((resolve, reject) => {
        // server.close() closes idle keep-alive connections once; those that finish their
        // request later would otherwise linger for keepAliveTimeout.
        closeUnused();
        const idleSweep = setInterval(() => {
          server.closeIdleConnections();
          closeUnused();
        }, 25);
        const deadline = setTimeout(() => server.closeAllConnections(), closeTimeout);
        server.close(() => {
          clearInterval(idleSweep);
          clearTimeout(deadline);
          // Every response has been sent, and every plant it acknowledged committed; this
          // commits what is still queued (from connections cut at the deadline) and closes.
          store.close().then(resolve, reject);
        });
      });
      return closed;
    },
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

/** `memory`, `postgres` or `sqlite`: the page says whether its journal and controls are this instance's alone. */
function storeKind(database: string): 'sqlite' | 'memory' | 'postgres' {
  if (database === ':memory:') return 'memory';
  return isDatabaseServer(database) ? 'postgres' : 'sqlite';
}

/** One observer for the log and the metrics, or none: with neither, the app skips the bookkeeping. */
function observerOf(...observers: Array<RequestObserver | undefined>): RequestObserver | undefined {
  const present = observers.filter((observer) => observer !== undefined);
  if (present.length <= 1) return present[0];
  return (record) => {
    for (const observer of present) observer(record);
  };
}

function checkOptions(options: PlantServerOptions, headersTimeout: number, requestTimeout: number): void {
  // Checked before the store is opened: a bad origin is a usage error (exit 2), with nothing to release.
  if (options.corsOrigins !== undefined) createCors(options.corsOrigins);
  if (options.tokens.length === 0) throw new ServerOptionsError('at least one access token is needed');
  const bad = options.tokens.find((token) => !isBearerToken(token));
  if (bad !== undefined)
    throw new ServerOptionsError(`an access token is not a bearer token: ${describeBadToken(bad)}`);
  if (options.metricsToken !== undefined) {
    if (options.metrics !== true) throw new ServerOptionsError('a metrics token needs the metrics turned on');
    if (!isBearerToken(options.metricsToken)) {
      throw new ServerOptionsError(
        'the metrics token has characters a bearer token cannot have (A-Z a-z 0-9 - . _ ~ + / and trailing =)',
      );
    }
  }
  if (options.logFormat !== undefined && !LOG_FORMATS.includes(options.logFormat)) {
    throw new ServerOptionsError(`log format must be one of ${LOG_FORMATS.join(', ')} (got ${options.logFormat})`);
  }
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new ServerOptionsError(`log level must be one of ${LOG_LEVELS.join(', ')} (got ${options.logLevel})`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) {
    throw new ServerOptionsError(`port must be a whole number from 0 to 65535 (got ${options.port})`);
  }
  const positive: Array<[string, number | undefined]> = [
    ['maxBodyBytes', options.maxBodyBytes],
    ['headersTimeoutMs', headersTimeout],
    ['requestTimeoutMs', requestTimeout],
    ['keepAliveTimeoutMs', options.keepAliveTimeoutMs],
    ['closeTimeoutMs', options.closeTimeoutMs],
  ];
  if (options.busyTimeoutMs !== undefined && !(Number.isInteger(options.busyTimeoutMs) && options.busyTimeoutMs >= 0)) {
    throw new ServerOptionsError(`busyTimeoutMs must be a whole number from 0 up (got ${options.busyTimeoutMs})`);
  }
  for (const [name, value] of positive) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new ServerOptionsError(`${name} must be a whole number above 0 (got ${value})`);
    }
  }
  if (headersTimeout > requestTimeout) {
    throw new ServerOptionsError(
      `headersTimeoutMs (${headersTimeout}) must not be longer than requestTimeoutMs (${requestTimeout})`,
    );
  }
}

function listen(server: http.Server, host: string, port: number): Promise<void> {
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

function describeListenFailure(error: NodeJS.ErrnoException, host: string, port: number): ListenError {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const options = { cause: error };
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenError(`cannot listen on ${where}: the port is already in use`, {
        ...options,
        hints: ['Stop the other server, or choose another port (port 0 picks a free one).'],
      });
    case 'EACCES':
      return new ListenError(
        `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`,
        options,
      );
    case 'EADDRNOTAVAIL':
      return new ListenError(`cannot listen on ${where}: this machine has no such address`, options);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(`cannot listen on ${where}: the host name does not resolve`, options);
    default:
      return new ListenError(`cannot listen on ${where}: ${error.message.replace(/\s+/g, ' ')}`, options);
  }
}
