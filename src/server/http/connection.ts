import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { awaitsContinue, wasToldToContinue } from './request.js';
import { errorBody, sendJson } from './response.js';

/**
 * The response each connection is working on, so that an error raised for the connection (a time-out while the
 * body trickles in) can be answered through it and logged. On the socket: cheaper than a WeakMap per request.
 */
const kResponse = Symbol('plants.response');
type TrackedSocket = Duplex & { [kResponse]?: ServerResponse };

export function trackResponse(req: IncomingMessage, res: ServerResponse): void {
  (req.socket as TrackedSocket)[kResponse] = res;
}

function responseInFlight(socket: Duplex): ServerResponse | undefined {
  const res = (socket as TrackedSocket)[kResponse];
  // node sets `destroyed` on a response just before it emits 'close'.
  return res === undefined || res.destroyed ? undefined : res;
}

/**
 * node drops every pipelined answer queued behind one that says `Connection: close`: a request read after the
 * connection's last answer was chosen could never be answered.
 */
const kLatest = Symbol('plants.latestResponse');
const kEnding = Symbol('plants.ending');
type ReadingSocket = Socket & { [kLatest]?: ServerResponse; [kEnding]?: true };

/**
 * Whether to carry out a request just read: not once its connection's last answer is chosen, so that nothing is
 * stored that the client is never told of.
 */
export function admitRequest(req: IncomingMessage, res: ServerResponse, stopping: boolean): boolean {
  const socket = req.socket as ReadingSocket;
  if (socket[kEnding] === true) {
    req.resume();
    return false;
  }
  socket[kLatest] = res;
  if (stopping) endConnectionWith(res);
  return true;
}

export function closeAfterAnswer(socket: Duplex): void {
  const res = (socket as ReadingSocket)[kLatest];
  if (res !== undefined && !res.headersSent && !res.destroyed) endConnectionWith(res);
}

/**
 * Not node's closeIdleConnections(): it counts a connection idle once the answer it is writing has ended, though
 * pipelined answers may be queued behind it, and drops them, their requests carried out all the same.
 */
export function closeIfIdle(socket: Duplex): void {
  const reading = socket as ReadingSocket;
  const latest = reading[kLatest];
  if (reading.writableEnded || (latest !== undefined && !latest.writableFinished && !latest.destroyed)) return;
  reading[kEnding] = true;
  lingerOnClose(reading);
  reading.destroySoon();
}

/** Lingers, so that a request pipelined behind `res` does not make the kernel reset the connection over it. */
export function endConnectionWith(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const socket = res.req.socket as ReadingSocket;
  socket[kEnding] = true;
  lingerOnClose(socket);
}

/** `clientError`, answered with an Error body where node would send an empty one. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const [status, message] = CLIENT_ERRORS.get(error.code) ?? [400, 'malformed HTTP request'];
  const inFlight = responseInFlight(socket);
  if (inFlight !== undefined && !inFlight.headersSent && status === 408) {
    // Its body still arriving: answer through its response, so that the request log shows the 408.
    endConnectionWith(inFlight);
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

const CLIENT_ERRORS = new Map<string | undefined, [number, string]>([
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'request timed out: the headers or the body arrived too slowly']],
  ['HPE_HEADER_OVERFLOW', [431, 'request headers are too large']],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', [413, 'chunk extensions are too large']],
]);

/** How long a connection answered early goes on reading, so that the client reads the answer before it goes. */
export const LINGER_MS = 2000;

/**
 * For an answer given before the body was read. A small body is read and thrown away, keeping the connection;
 * any other could go on for ever, so the connection closes as RFC 9112 §9.6 asks (the answer, our half, then
 * reading until LINGER_MS): closing at once makes the kernel reset it over the unread bytes, a reset that often
 * overtakes the answer.
 */
export function settleUnreadBody(req: IncomingMessage, res: ServerResponse, drainLimit: number): void {
  const declared = req.headers['content-length'];
  // Told no 100 Continue, a client may send its body or not (RFC 9110 §10.1.1): the next request is ambiguous.
  const bodyMayNeverCome = awaitsContinue(req) && !wasToldToContinue(req);
  if (bodyMayNeverCome || declared === undefined || !(Number(declared) <= drainLimit)) endConnectionWith(res);
  res.once('finish', () => {
    if (!req.complete) req.resume();
  });
}

/** node ends a `Connection: close` answer with destroySoon(), which destroys the socket once flushed. */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
    this.end();
  };
}
