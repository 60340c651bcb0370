import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJsonExact } from '../schema/exact-json.js';
import { OUTCOME_UNKNOWN } from '../schema/plant.js';
import { createBearerAuth } from './auth.js';
import { inConnectionOrder } from './connection-order.js';
import { createCors } from './cors.js';
import { ConflictError, HttpError, NotFoundError } from './errors.js';
import { settleUnreadBody, trackResponse } from './http/connection.js';
import { ClientGoneError, checkTransferCoding, hasBody, pathOf, requestIdOf } from './http/request.js';
import { errorBody, sendJson } from './http/response.js';
import { plantIdSegment } from './listing.js';
import type { RequestObserver } from './observability/request-record.js';
import { createPlantRoutes, toWire } from './routes/plants.js';
import { createProbeRoutes, PROBE_PATHS, type ProbeOptions } from './routes/probes.js';
import type { Handler, RouteContext, RouteHandler } from './routes/route-context.js';
import type { PlantServerOptions } from './server-options.js';
import {
  StorageFaultError,
  StorageFullError,
  StoreClosedError,
  StoreError,
  StoreUnavailableError,
} from './stores/store-errors.js';
import type { PlantRequestInterceptor } from './test-double/test-controls.js';

/** A NewPlant is well under 3 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export interface PlantAppOptions
  extends ProbeOptions,
    Pick<PlantServerOptions, 'maxBodyBytes' | 'onInternalError' | 'corsOrigins'> {
  store: RouteContext['store'];
  observe?: RequestObserver;
  onStoreError?: (error: unknown) => void;
  /** Without it POST /reset is a 404 that says how to allow it. */
  reset?: () => Promise<void>;
  /** Absent: not on the request path at all. */
  interceptPlantRequest?: PlantRequestInterceptor;
  /** The page's. They never replace the store's. */
  extraRoutes?: Readonly<Record<string, Readonly<Record<string, RouteHandler>>>>;
}

/** Logged for a request the client gave up on before it was answered (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;

/** The route table, the dispatcher and the one error mapper; it never listens (start.ts does). */
export function createPlantApp(options: PlantAppOptions): Handler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { observe } = options;

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (error instanceof ClientGoneError) return;
    if (!(error instanceof HttpError || error instanceof StoreError) || error instanceof StorageFaultError) {
      safely(options.onInternalError, error);
    }
    sendError(req, res, httpErrorOf(error), maxBodyBytes);
  };
  const context: RouteContext = {
    store: options.store,
    authorize: createBearerAuth(options.tokens),
    maxBodyBytes,
    fail,
    failed: (req, res) => (error) => {
      safely(options.onStoreError, error);
      fail(req, res, error);
    },
  };
  const plants = createPlantRoutes(context, options.reset);
  const probes = createProbeRoutes(context, options);

  const routes: Record<string, Record<string, Handler>> = {
    '/plants': { POST: plants.addPlant, GET: plants.listPlants },
    '/healthz': { GET: probes.health, HEAD: probes.health },
    '/livez': { GET: probes.live, HEAD: probes.live },
    '/readyz': { GET: probes.ready, HEAD: probes.ready },
    '/openapi.json': { GET: probes.contract, HEAD: probes.contract },
    '/reset': { POST: plants.resetStore },
  };
  if (probes.scrape !== undefined) routes['/metrics'] = { GET: probes.scrape, HEAD: probes.scrape };
  for (const [path, methods] of Object.entries(options.extraRoutes ?? {})) {
    if (Object.hasOwn(routes, path)) continue;
    routes[path] = Object.fromEntries(
      Object.entries(methods).map(([method, handler]) => [
        method,
        (req: IncomingMessage, res: ServerResponse) => handler(req, res, (error) => fail(req, res, error)),
      ]),
    );
  }
  const onePlantRoute: Record<string, Handler> = { GET: plants.getPlant, DELETE: plants.deletePlant };

  const intercept = options.interceptPlantRequest;
  const cors =
    options.corsOrigins === undefined || options.corsOrigins.length === 0 ? undefined : createCors(options.corsOrigins);

  // The hot path: nothing is done for the log when there is none.
  const handle: Handler = (req, res) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    trackResponse(req, res);
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
      if (handler === undefined) {
        const allowed = Object.keys(methods);
        throw new HttpError(405, `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, {
          headers: { allow: allowed.join(', ') },
        });
      }
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

/** The one place a failure gets its HTTP status; anything unknown is a 500 that tells nothing. */
export function httpErrorOf(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (!(error instanceof StoreError)) return new HttpError(500, 'internal server error');
  // A change that may have been made says so, whatever the status: never Retry-After's "send it again".
  const options = { cause: error, outcome: error.outcomeUnknown ? OUTCOME_UNKNOWN : undefined };
  if (error instanceof StoreUnavailableError) {
    return new HttpError(503, error.message, {
      ...options,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    });
  }
  if (error instanceof StoreClosedError) {
    return new HttpError(503, 'the server is stopping', { ...options, headers: { 'retry-after': '1' } });
  }
  if (error instanceof StorageFullError) return new HttpError(507, error.message, options);
  if (error instanceof StorageFaultError) return new HttpError(500, error.message, options);
  // OutcomeUnknownError: the database went away mid-change.
  return new HttpError(503, error.message, options);
}

function sendError(req: IncomingMessage, res: ServerResponse, httpError: HttpError, drainLimit: number): void {
  if (res.headersSent || res.destroyed) return;
  for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
  if (!req.complete && hasBody(req)) settleUnreadBody(req, res, drainLimit);
  const stored = httpError instanceof ConflictError ? httpError.stored : undefined;
  sendJson(
    res,
    httpError.status,
    stored === undefined
      ? errorBody(httpError.status, httpError.message, httpError.outcome)
      : stringifyJsonExact({ error: httpError.status, message: httpError.message, plant: toWire(stored) }),
  );
}

function safely<T>(callback: ((value: T) => void) | undefined, value: T): void {
  try {
    callback?.(value);
  } catch {
    // A failing log must not take a request, or the server, down with it.
  }
}
