import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { stringifyJsonExact } from '../schema/exact-json.js';
import { InvalidPlantError, type NewPlant, parseNewPlantJson } from '../schema/plant.js';
import { createBearerAuth } from './auth.js';
import {
  BadRequestError,
  ConflictError,
  HttpError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from './errors.js';
import { plantStoreOpenApi } from './openapi.js';
import type { PlantStore } from './store.js';

/** Largest request body accepted by default: a NewPlant is well under 3 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export interface PlantAppOptions {
  /** Where plants go. Only `add` is used. */
  store: Pick<PlantStore, 'add'>;
  /** Accepted bearer tokens. */
  tokens: readonly string[];
  /** Receives one line per request: `METHOD /path STATUS 1.2ms`. Never the token, never the body. */
  log?: (line: string) => void;
  /** Bodies larger than this are refused with 413. Default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** Receives the error behind each 500, which the client never sees. Default: nothing. */
  onInternalError?: (error: unknown) => void;
}

export type PlantRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

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
 */
const responseOnSocket = new WeakMap<Duplex, ServerResponse>();

/**
 * The plant store as a request handler for node:http or node:https. It never listens: start.ts
 * does that. Handlers are thin (check, parse, store, answer); every failure is thrown and turned
 * into an Error body in one place, `sendError`.
 */
export function createPlantApp(options: PlantAppOptions): PlantRequestHandler {
  const authorize = createBearerAuth(options.tokens);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const openapi = JSON.stringify(plantStoreOpenApi);

  const addPlant: Handler = async (req, res) => {
    // Auth first, before a byte of the body is read: a client without a token learns nothing more.
    authorize(req.headers.authorization);
    checkContentType(req.headers['content-type']);
    const body = await readBody(req, maxBodyBytes);
    const plant = parsePlant(body);
    const result = await options.store.add(plant);
    if (!result.added) throw new ConflictError(`a plant with id ${result.id} already exists`);
    sendJson(res, 200, stringifyJsonExact(toWire(result.plant)));
  };
  const health: Handler = (_req, res) => sendJson(res, 200, '{"status":"ok"}');
  const contract: Handler = (_req, res) => sendJson(res, 200, openapi);

  const routes: Record<string, Record<string, Handler>> = {
    '/plants': { POST: addPlant },
    '/healthz': { GET: health, HEAD: health },
    '/openapi.json': { GET: contract, HEAD: contract },
  };

  return (req, res) => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    responseOnSocket.set(req.socket, res);
    res.once('close', () => {
      if (responseOnSocket.get(req.socket) === res) responseOnSocket.delete(req.socket);
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
      const ms = (performance.now() - started).toFixed(1);
      safely(options.log, `${method} ${path} ${status} ${ms}ms`);
    });

    const run = async () => {
      const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (route === undefined) throw new NotFoundError(path);
      const handler = Object.hasOwn(route, method) ? route[method] : undefined;
      if (handler === undefined) throw new MethodNotAllowedError(method, path, Object.keys(route));
      await handler(req, res);
    };
    run().catch((error: unknown) => {
      if (error instanceof ClientGoneError) return;
      if (!(error instanceof HttpError)) safely(options.onInternalError, error);
      sendError(req, res, error, maxBodyBytes);
    });
  };
}

/**
 * Answers an error the HTTP parser or its timers raise for a connection (the server's
 * `clientError` event) with an Error body, as node itself would answer with an empty one.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const [status, message] = clientErrorStatus(error.code);
  const inFlight = responseOnSocket.get(socket);
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

/** The path without the query, cut short: it goes into the log and into 404 messages. */
function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function checkContentType(header: string | undefined): void {
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
 * or as soon as a chunked body grows past it, without keeping what comes after.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onClose = () => {
      cleanup();
      reject(new ClientGoneError());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
  });
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
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(body);
}

/** The one error handler: an HttpError as it says, anything else as a 500 that tells nothing. */
function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, drainLimit: number): void {
  if (res.headersSent || res.destroyed) return;
  const httpError = error instanceof HttpError ? error : new HttpError(500, 'internal server error');
  for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
  if (!req.complete) discardRestOfBody(req, res, drainLimit);
  sendJson(res, httpError.status, errorBody(httpError.status, httpError.message));
}

/**
 * After an answer given before the body was read (401, 413, 415), the rest of the body is read
 * and thrown away so that the client gets to read the answer and the connection stays usable;
 * closing at once would make the kernel reset the connection over the unread bytes, often before
 * the client has read the answer. Past `limit` more bytes the connection is cut instead.
 */
function discardRestOfBody(req: IncomingMessage, res: ServerResponse, limit: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    let discarded = 0;
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limit) req.socket.destroy();
    });
    req.resume();
  });
}

function safely<T>(callback: ((value: T) => void) | undefined, value: T): void {
  try {
    callback?.(value);
  } catch {
    // A failing log must not take a request, or the server, down with it.
  }
}
