import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { stringifyJsonExact } from '../schema/exact-json.js';
import { InvalidPlantError, type NewPlant, parseNewPlantJson } from '../schema/plant.js';
import { createBearerAuth } from './auth.js';
import { inConnectionOrder } from './connection-order.js';
import { createCors } from './cors.js';
import {
  BadRequestError,
  ConflictError,
  HttpError,
  MethodNotAllowedError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  StorageFaultError,
  StoreUnavailableError,
  UnsupportedMediaTypeError,
} from './errors.js';
import {
  DEFAULT_PAGE_SIZE,
  nextPageLink,
  parseListQuery,
  plantIdFromPath,
  plantIdSegment,
  renderPage,
} from './listing.js';
import type { RequestObserver } from './observability/request-record.js';
import type { ServerMetrics } from './observability/server-metrics.js';
import { plantStoreOpenApi } from './openapi.js';
import { type AddResult, type PlantStore, StoreClosedError } from './stores/plant-store.js';
import type { PlantRequestInterceptor } from './testing/plant-faults.js';

/** Largest request body accepted by default: a NewPlant is well under 3 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export interface PlantAppOptions {
  /** Where plants are kept: SQLite or PostgreSQL, the handler cannot tell. */
  store: Pick<PlantStore, 'add' | 'page' | 'get' | 'remove' | 'check'>;
  /** Accepted bearer tokens. */
  tokens: readonly string[];
  /** Told of every request once it is answered, or its client gone: the request log and the metrics. */
  observe?: RequestObserver;
  /** Told of each store call that failed (each answered 500 or 503), for the metrics. */
  onStoreError?: (error: unknown) => void;
  /** Serves GET /metrics (Prometheus text) when given. */
  metrics?: Pick<ServerMetrics, 'contentType' | 'scrape'>;
  /**
   * A token that may read /metrics besides the store's own. Without it, /metrics answers a
   * client on loopback with no token at all; with it, every scrape must present a token.
   */
  metricsToken?: string;
  /** Bodies larger than this are refused with 413. Default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** Receives the error behind each 500, which the client never sees. Default: nothing. */
  onInternalError?: (error: unknown) => void;
  /** Browser origins allowed to call the store (CORS); see createCors. Default: none. */
  corsOrigins?: readonly string[];
  /**
   * POST /reset (serve --allow-reset): puts the store back to its seed, atomically. Without it
   * POST /reset is a 404 that says how to allow it, and nothing changes.
   */
  reset?: () => Promise<void>;
  /** serve --delay/--fault (src/server/testing/): runs each plant request. Absent: not on the request path at all. */
  interceptPlantRequest?: PlantRequestInterceptor;
  /** More routes, by path and method: the page's (src/server/page/). They never replace the store's. */
  extraRoutes?: Readonly<Record<string, Readonly<Record<string, RouteHandler>>>>;
}

export type PlantRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers, or throws (synchronously) for the one error handler; later failures go to it by callback. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A handler of another module: answers, or throws (synchronously), or hands a later failure to `fail`. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, fail: (error: unknown) => void) => void;

/**
 * Logged for a request the client gave up on before it was answered (nginx's convention):
 * nothing was sent, and nothing was stored unless the whole body had arrived.
 */
const CLIENT_CLOSED_REQUEST = 499;

/** The client went away before its body was complete: there is nobody to answer. */
class ClientGoneError extends Error {}

/**
 * The response each connection is working on, so that an error the HTTP layer raises for the
 * connection (a time-out while the body trickles in) can be answered through it and logged.
 * Kept on the socket itself (cheaper than a WeakMap per request); a response that has closed
 * (finished, or its connection gone) counts as none.
 */
const kResponse = Symbol('plants.response');
type TrackedSocket = Duplex & { [kResponse]?: ServerResponse };

function responseInFlight(socket: Duplex): ServerResponse | undefined {
  const res = (socket as TrackedSocket)[kResponse];
  // node sets `destroyed` on a response just before it emits 'close'.
  return res === undefined || res.destroyed ? undefined : res;
}

/**
 * The plant store as a request handler for node:http or node:https. It never listens: start.ts
 * does that. Handlers are thin (check, parse, store, answer); every failure is thrown and turned
 * into an Error body in one place, `sendError`.
 */
export function createPlantApp(options: PlantAppOptions): PlantRequestHandler {
  const authorize = createBearerAuth(options.tokens);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const openapi = JSON.stringify(plantStoreOpenApi);
  const { store, observe, metrics } = options;

  // This is the hot path of the server: callbacks and one promise (the store's) per request
  // rather than a chain of async functions, and nothing done for the log when there is none.
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (error instanceof ClientGoneError) return;
    if (!(error instanceof HttpError) || error instanceof StorageFaultError) safely(options.onInternalError, error);
    sendError(req, res, error, maxBodyBytes);
  };
  // A store call that rejected: counted for the metrics, then answered like any failure.
  const failed =
    (req: IncomingMessage, res: ServerResponse) =>
    (error: unknown): void => {
      safely(options.onStoreError, error);
      fail(req, res, error);
    };

  const addPlant: Handler = (req, res) => {
    // Auth first, before a byte of the body is read: a client without a token learns nothing more.
    authorize(req.headers.authorization);
    checkContentType(req.headers['content-type']);
    checkContentEncoding(req.headers['content-encoding']);
    readBody(req, res, maxBodyBytes, (error, body) => {
      if (error !== undefined) return fail(req, res, error);
      let added: Promise<AddResult>;
      try {
        added = store.add(parsePlant(body));
      } catch (parseError) {
        return fail(req, res, parseError);
      }
      added.then(
        (result) => {
          if (!result.added) {
            // The 409 carries the plant stored under the id, read now: a client re-running an
            // import settles it without a GET of its own. Not read (deleted since, the store
            // failing): the Error record alone, which is still the true answer.
            const message = `a plant with id ${result.id} already exists`;
            store.get(result.id).then(
              (stored) => fail(req, res, new ConflictError(message, stored)),
              () => fail(req, res, new ConflictError(message)),
            );
            return;
          }
          try {
            sendJson(res, 200, stringifyJsonExact(toWire(result.plant)));
          } catch (sendFailure) {
            fail(req, res, sendFailure);
          }
        },
        failed(req, res),
      );
    });
  };
  // GET /plants, GET and DELETE /plants/{id}: plants serve's own routes, in the shape the
  // published plant store uses (the seed interface names them without showing them).
  const listPlants: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const { limit, after } = parseListQuery(searchOf(req.url));
    store.page(after, limit + 1).then(
      (plants) => {
        const page = renderPage(plants, limit, (plant) => stringifyJsonExact(toWire(plant)));
        if (page.nextAfter !== undefined) res.setHeader('link', nextPageLink(limit, page.nextAfter));
        sendJson(res, 200, page.body);
      },
      failed(req, res),
    );
  };
  const getPlant: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const id = plantIdFromPath(pathOf(req.url));
    store.get(id).then(
      (plant) => {
        if (plant === undefined) return fail(req, res, new NotFoundError(`/plants/${id}`, `no plant with id ${id}`));
        sendJson(res, 200, stringifyJsonExact(toWire(plant)));
      },
      failed(req, res),
    );
  };
  const deletePlant: Handler = (req, res) => {
    authorize(req.headers.authorization);
    const id = plantIdFromPath(pathOf(req.url));
    store.remove(id).then(
      (removed) => {
        if (!removed) return fail(req, res, new NotFoundError(`/plants/${id}`, `no plant with id ${id}`));
        res.statusCode = 204;
        res.end();
      },
      failed(req, res),
    );
  };
  // /livez: the process answers. /readyz: the store can serve too; an orchestrator sends traffic
  // only to a ready instance and restarts only one that is not live. /healthz, the older name
  // load balancers ask: up and the store reachable (503 while the database is away).
  const live: Handler = (_req, res) => sendJson(res, 200, '{"status":"ok"}');
  const health: Handler = (req, res) => {
    store.check().then(
      () => sendJson(res, 200, '{"status":"ok"}'),
      (error: unknown) => fail(req, res, error),
    );
  };
  const ready: Handler = (req, res) => {
    store.check().then(
      () => sendJson(res, 200, '{"status":"ready"}'),
      // Stopping is not ready either: the balancer should stop sending here (503, not a 500).
      (error: unknown) =>
        fail(req, res, error instanceof StoreClosedError ? new StoreUnavailableError('the server is stopping') : error),
    );
  };
  const contract: Handler = (_req, res) => sendJson(res, 200, openapi);
  // POST /reset rather than DELETE /plants: it puts the seed back, which is not a deletion, and a
  // client that drops the id of DELETE /plants/{id} must never empty a store (that stays a 405).
  const { reset } = options;
  const resetStore: Handler = (req, res) => {
    authorize(req.headers.authorization);
    if (reset === undefined) {
      throw new NotFoundError(
        '/reset',
        'reset is off on this server: start plants serve with --allow-reset to allow it',
      );
    }
    // A body, if any, means nothing: read and dropped before the store is touched.
    readBody(req, res, maxBodyBytes, (error, _body) => {
      if (error !== undefined) return fail(req, res, error);
      // Answered like GET /plants: the first page of what the store holds now.
      reset()
        .then(() => store.page(undefined, DEFAULT_PAGE_SIZE + 1))
        .then(
          (plants) => {
            const page = renderPage(plants, DEFAULT_PAGE_SIZE, (plant) => stringifyJsonExact(toWire(plant)));
            if (page.nextAfter !== undefined) res.setHeader('link', nextPageLink(DEFAULT_PAGE_SIZE, page.nextAfter));
            sendJson(res, 200, page.body);
          },
          failed(req, res),
        );
    });
  };
  // Loopback is this machine: a scraper there may read without a token, unless a metrics token
  // is set (a reverse proxy on this machine would make every client look local).
  const metricsOpenOnLoopback = options.metricsToken === undefined;
  const authorizeMetrics = createBearerAuth(
    options.metricsToken === undefined ? options.tokens : [...options.tokens, options.metricsToken],
  );
  const scrape: Handler = (req, res) => {
    if (metrics === undefined) return;
    if (!(metricsOpenOnLoopback && isLoopbackAddress(req.socket.remoteAddress))) {
      authorizeMetrics(req.headers.authorization);
    }
    metrics.scrape().then(
      (text) => sendBody(res, 200, metrics.contentType, text),
      (error: unknown) => fail(req, res, error),
    );
  };

  const routes: Record<string, Record<string, Handler>> = {
    '/plants': { POST: addPlant, GET: listPlants },
    '/healthz': { GET: health, HEAD: health },
    '/livez': { GET: live, HEAD: live },
    '/readyz': { GET: ready, HEAD: ready },
    '/openapi.json': { GET: contract, HEAD: contract },
    '/reset': { POST: resetStore },
  };
  if (metrics !== undefined) routes['/metrics'] = { GET: scrape, HEAD: scrape };
  for (const [path, methods] of Object.entries(options.extraRoutes ?? {})) {
    if (Object.hasOwn(routes, path)) continue;
    routes[path] = Object.fromEntries(
      Object.entries(methods).map(([method, handler]) => [
        method,
        (req: IncomingMessage, res: ServerResponse) => handler(req, res, (error) => fail(req, res, error)),
      ]),
    );
  }

  const onePlantRoute: Record<string, Handler> = { GET: getPlant, DELETE: deletePlant };
  const intercept = options.interceptPlantRequest;
  const cors =
    options.corsOrigins === undefined || options.corsOrigins.length === 0 ? undefined : createCors(options.corsOrigins);

  const handle: PlantRequestHandler = (req, res) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    (req.socket as TrackedSocket)[kResponse] = res;
    let route = 'other';
    let fault: string | undefined;
    if (observe !== undefined) {
      const started = performance.now();
      res.once('close', () => {
        const finished = res.writableFinished;
        safely(observe, {
          method,
          path,
          target: req.url ?? '/',
          route,
          // An injected reset or truncation cut the answer its handler had begun: log its status.
          status: finished || (fault !== undefined && res.headersSent) ? res.statusCode : CLIENT_CLOSED_REQUEST,
          durationMs: performance.now() - started,
          bytes: finished && method !== 'HEAD' ? Number(res.getHeader('content-length') ?? 0) : 0,
          requestId,
          probe: PROBE_PATHS.has(path),
          fault,
        });
      });
    }
    try {
      if (cors?.(req, res) === true) return;
      const transferCoding = req.headers['transfer-encoding'];
      if (transferCoding !== undefined && transferCoding !== 'chunked') checkTransferCoding(transferCoding);
      const known = Object.hasOwn(routes, path);
      const methods = known ? routes[path] : plantIdSegment(path) !== undefined ? onePlantRoute : undefined;
      if (methods === undefined) throw new NotFoundError(path);
      route = known ? path : '/plants/{id}';
      const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (handler === undefined) throw new MethodNotAllowedError(method, path, Object.keys(methods));
      // serve --delay/--fault: plant routes only, never the probes, /metrics or /reset.
      if (intercept !== undefined && (route === '/plants' || route === '/plants/{id}')) {
        fault = intercept(req, res, handler, (error) => fail(req, res, error));
      } else handler(req, res);
    } catch (error) {
      fail(req, res, error);
    }
  };
  // Adds may overlap on a connection: the store applies them in the order add() is called.
  return inConnectionOrder(handle, (req) => req.method === 'POST' && pathOf(req.url) === '/plants');
}

/**
 * For a graceful close: if the request a connection is working on has not started its answer,
 * that answer ends the connection (Connection: close).
 */
export function closeAfterAnswer(socket: Duplex): void {
  const res = responseInFlight(socket);
  if (res !== undefined && !res.headersSent) res.setHeader('connection', 'close');
}

/**
 * Answers an error the HTTP parser or its timers raise for a connection (the server's
 * `clientError` event) with an Error body, as node itself would answer with an empty one.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const [status, message] = clientErrorStatus(error.code);
  const inFlight = responseInFlight(socket);
  if (inFlight !== undefined && !inFlight.headersSent && !inFlight.destroyed && status === 408) {
    // The request is in our hands, its body still arriving: answer through its response, so the
    // request log shows the 408. Connection: close makes node close the socket once it is sent.
    inFlight.setHeader('connection', 'close');
    sendJson(inFlight, 408, errorBody(408, message));
    return;
  }
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const body = errorBody(status, message);
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // Close once the answer is flushed, not before (net.Socket.destroySoon; end() for other duplexes).
  const { destroySoon } = socket as Duplex & { destroySoon?: () => void };
  if (typeof destroySoon === 'function') destroySoon.call(socket);
  else socket.end();
}

function clientErrorStatus(code: string | undefined): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request timed out: the headers or the body arrived too slowly'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request headers are too large'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'chunk extensions are too large'];
    default:
      return [400, 'malformed HTTP request'];
  }
}

/** The query of a request URL, without the `?`. */
function searchOf(url: string | undefined): string {
  const index = url?.indexOf('?') ?? -1;
  return index === -1 || url === undefined ? '' : url.slice(index + 1);
}

/** Probes an orchestrator asks, and scrapes, every few seconds: logged only at the debug level. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

/** An X-Request-Id worth passing on: a token-like id (a UUID, a trace id), not a sentence or markup. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The client's X-Request-Id when it is sane (two of them, joined by node, are not), else a new UUID. */
function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6: a client on this machine. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const ip = address.startsWith('::ffff:') ? address.slice(7) : address;
  return ip === '::1' || ip.startsWith('127.');
}

/** `http://host:port` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The path without the query, cut short: it routes, and goes into the log and 404 messages. A
 * forward proxy sends the absolute form (`POST http://host/plants`); it routes by its path.
 */
function pathOf(url: string | undefined): string {
  if (url === '/plants') return url;
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    const authority = ABSOLUTE_FORM.exec(target);
    if (authority !== null) target = target.slice(authority[0].length);
    if (!target.startsWith('/')) target = `/${target}`;
  }
  const path = target.split('?', 1)[0] ?? '/';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/**
 * node reads a body whose last transfer coding is chunked, and would hand us `gzip, chunked`
 * still gzipped: a coding other than chunked is one we cannot undo (501, RFC 9112 §6.1).
 */
function checkTransferCoding(header: string): void {
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase());
  const other = codings.find((coding) => coding !== 'chunked');
  if (other !== undefined || codings.length !== 1) {
    throw new NotImplementedError(
      `transfer coding ${JSON.stringify((other ?? header).slice(0, 40))} is not supported; send the body with Content-Length or chunked alone`,
    );
  }
}

/**
 * The server decodes no content coding: a gzipped body would be stored as if it were JSON text,
 * or refused as malformed JSON. 415 with Accept-Encoding: identity says what to send instead
 * (RFC 9110 §15.5.16).
 */
function checkContentEncoding(header: string | undefined): void {
  if (header === undefined) return;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return;
  throw new UnsupportedMediaTypeError(
    `content coding ${JSON.stringify((codings[0] ?? '').slice(0, 40))} is not supported; send the body unencoded`,
    { headers: { 'accept-encoding': 'identity' } },
  );
}

export function checkContentType(header: string | undefined): void {
  if (header === 'application/json') return;
  if (header === undefined || header.trim() === '') {
    throw new UnsupportedMediaTypeError('content-type must be application/json');
  }
  const [type = '', ...parameters] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new UnsupportedMediaTypeError(`content-type must be application/json, not ${mediaType.slice(0, 100)}`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2);
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new UnsupportedMediaTypeError(`charset must be utf-8, not ${charset.slice(0, 40)}`);
    }
  }
}

/**
 * Reads the body into memory, refusing (413) past `limit` bytes: up front from Content-Length,
 * or as soon as a chunked body grows past it, without keeping what comes after. Calls `done`
 * exactly once.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  done: (...result: [error: Error, body: undefined] | [error: undefined, body: Buffer]) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    done(new PayloadTooLargeError(limit), undefined);
    return;
  }
  // Only now, with the token and the headers found good, is the client told to send its body.
  if (awaitsContinue(req)) {
    (req as ContinuedRequest)[kContinued] = true;
    res.writeContinue();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  // Once the body is in, the listeners may stay: 'data' cannot come again, and a later 'close'
  // (node destroys every request once read) finds the answer settled. Only a refusal in the
  // middle of the body takes them off, so that the rest of the body can be thrown away.
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      settled = true;
      req.off('data', onData);
      req.pause();
      done(new PayloadTooLargeError(limit), undefined);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (settled) return;
    settled = true;
    done(undefined, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  };
  const onClose = () => {
    if (settled) return;
    settled = true;
    done(new ClientGoneError(), undefined);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
  req.on('error', onClose);
}

/**
 * Marks a request told `100 Continue`. start.ts hands `Expect: 100-continue` requests to the app
 * itself (node's 'checkContinue'), so nothing is promised before the token is checked.
 */
const kContinued = Symbol('plants.continued');
type ContinuedRequest = IncomingMessage & { [kContinued]?: true };

/** An HTTP/1.1 request with `Expect: 100-continue` (node lets anything else through, or answers 417). */
function awaitsContinue(req: IncomingMessage): boolean {
  return (
    req.httpVersion === '1.1' && req.headers.expect !== undefined && /^\s*100-continue\s*$/i.test(req.headers.expect)
  );
}

/** RFC 9112 §6.3: a request has a body only with Transfer-Encoding or a Content-Length above 0. */
function hasBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (declared !== undefined && Number(declared) !== 0);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parsePlant(body: Buffer): NewPlant {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (error) {
    throw new BadRequestError('request body is not valid UTF-8', { cause: error });
  }
  try {
    return parseNewPlantJson(text);
  } catch (error) {
    if (error instanceof InvalidPlantError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

/** The 200 body: id first, tag only when the plant has one. */
function toWire(plant: NewPlant): { id: bigint; name: string; tag?: string } {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}

function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: status, message });
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  sendBody(res, status, 'application/json', body);
}

function sendBody(res: ServerResponse, status: number, contentType: string, body: string): void {
  // writeHead with an object: one validation pass, where four setHeader calls would make two.
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

/** The one error handler: an HttpError as it says, anything else as a 500 that tells nothing. */
function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, drainLimit: number): void {
  if (res.headersSent || res.destroyed) return;
  const httpError = error instanceof HttpError ? error : new HttpError(500, 'internal server error');
  for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
  if (!req.complete && hasBody(req)) settleUnreadBody(req, res, drainLimit);
  const stored = httpError instanceof ConflictError ? httpError.stored : undefined;
  sendJson(
    res,
    httpError.status,
    stored === undefined
      ? errorBody(httpError.status, httpError.message)
      : stringifyJsonExact({ error: httpError.status, message: httpError.message, plant: toWire(stored) }),
  );
}

/**
 * How long a connection answered early (413 and friends) with `Connection: close` goes on
 * reading after its answer, so that the client reads the answer before the connection goes.
 */
export const LINGER_MS = 2000;

/**
 * For an answer given before the body was read (401, 413, 415). A body known to be small
 * (Content-Length within `drainLimit`) is read and thrown away, and the connection stays
 * usable. Any other body (chunked, or large) could go on for ever, so the answer says
 * `Connection: close`, and the connection closes the way RFC 9112 §9.6 asks: the answer, then
 * our half of the connection, then reading and throwing away until the client closes or
 * LINGER_MS pass. Closing at once would make the kernel reset the connection over the unread
 * bytes, and a reset often overtakes the answer before the client has read it. Saying
 * keep-alive and cutting later is worse: the client's next request meets the reset.
 */
function settleUnreadBody(req: IncomingMessage, res: ServerResponse, drainLimit: number): void {
  const declared = req.headers['content-length'];
  // A client that asked for 100 Continue and got a final answer instead may send its body or
  // not (RFC 9110 §10.1.1): the next request cannot be told apart from it, so the connection goes.
  const bodyMayNeverCome = awaitsContinue(req) && (req as ContinuedRequest)[kContinued] !== true;
  if (bodyMayNeverCome || declared === undefined || !(Number(declared) <= drainLimit)) {
    res.setHeader('connection', 'close');
    lingerOnClose(req.socket);
  }
  res.once('finish', () => {
    if (!req.complete) req.resume();
  });
}

/**
 * node ends a `Connection: close` answer with socket.destroySoon(), which destroys the socket as
 * soon as the answer is flushed. This socket lingers instead (see settleUnreadBody).
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    this.end();
  };
}

function safely<T>(callback: ((value: T) => void) | undefined, value: T): void {
  try {
    callback?.(value);
  } catch {
    // A failing log must not take a request, or the server, down with it.
  }
}
