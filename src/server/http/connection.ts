import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { awaitsContinue, wasToldToContinue } from './request.js';
import { errorBody, sendJson } from './response.js';

// A connection's side of answering: which response it is working on, how it closes after an
// early answer, and the answers to errors node's parser raises for it.

/**
 * The response each connection is working on, so that an error the HTTP layer raises for the
 * connection (a time-out while the body trickles in) can be answered through it and logged.
 * Kept on the socket itself (cheaper than a WeakMap per request); a response that has closed
 * (finished, or its connection gone) counts as none.
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
 * The latest request read on each connection (its response), and whether the connection's last
 * answer has been chosen. node queues the answers of pipelined requests behind one another and,
 * once an answer that says `Connection: close` is written, ends the connection and drops every
 * answer queued behind it: a request read after that answer was chosen could never be answered.
 */
const kLatest = Symbol('plants.latestResponse');
const kEnding = Symbol('plants.ending');
type ReadingSocket = Socket & { [kLatest]?: ServerResponse; [kEnding]?: true };

/**
 * Whether a request just read is to be carried out. Once its connection's last answer is chosen
 * it is not: its body is thrown away and it gets no answer, so that nothing is stored that the
 * client is never told of (the client sees the connection close with the request unanswered).
 * While the server is stopping, each request carried out is its connection's last.
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

/**
 * For a graceful close: if the latest request read on a connection has not started its answer,
 * that answer ends the connection (Connection: close); nothing read after it is carried out.
 */
export function closeAfterAnswer(socket: Duplex): void {
  const res = (socket as ReadingSocket)[kLatest];
  if (res !== undefined && !res.headersSent && !res.destroyed) endConnectionWith(res);
}

/**
 * For a graceful close: ends a connection that owes no answer (the latest request carried out
 * on it has been answered, and answers go out in order), the lingering way, so that nothing read
 * after is carried out. node's own closeIdleConnections() counts a connection idle once the answer
 * it is writing has ended, though pipelined answers may be queued behind it, and destroys it: the
 * queued answers are dropped, their requests carried out all the same.
 */
export function closeIfIdle(socket: Duplex): void {
  const reading = socket as ReadingSocket;
  const latest = reading[kLatest];
  if (reading.writableEnded || (latest !== undefined && !latest.writableFinished && !latest.destroyed)) return;
  reading[kEnding] = true;
  lingerOnClose(reading);
  reading.destroySoon();
}

/**
 * Makes `res` its connection's last answer: it says `Connection: close`, no request read after it
 * is carried out (admitRequest), and the connection lingers after it (lingerOnClose), so that a
 * request the client pipelined behind it does not make the kernel reset the connection over it.
 */
export function endConnectionWith(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const socket = res.req.socket as ReadingSocket;
  socket[kEnding] = true;
  lingerOnClose(socket);
}

/**
 * Answers an error the HTTP parser or its timers raise for a connection (the server's
 * `clientError` event) with an Error body, as node itself would answer with an empty one.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const [status, message] = CLIENT_ERRORS.get(error.code) ?? [400, 'malformed HTTP request'];
  const inFlight = responseInFlight(socket);
  if (inFlight !== undefined && !inFlight.headersSent && status === 408) {
    // The request is in our hands, its body still arriving: answer through its response, so the
    // request log shows the 408. Connection: close makes node close the socket once it is sent.
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

/** The answer to an error node's parser or timers raise, by its code; any other is a 400. */
const CLIENT_ERRORS = new Map<string | undefined, [number, string]>([
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'request timed out: the headers or the body arrived too slowly']],
  ['HPE_HEADER_OVERFLOW', [431, 'request headers are too large']],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', [413, 'chunk extensions are too large']],
]);

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
export function settleUnreadBody(req: IncomingMessage, res: ServerResponse, drainLimit: number): void {
  const declared = req.headers['content-length'];
  // A client that asked for 100 Continue and got a final answer instead may send its body or
  // not (RFC 9110 §10.1.1): the next request cannot be told apart from it, so the connection goes.
  const bodyMayNeverCome = awaitsContinue(req) && !wasToldToContinue(req);
  if (bodyMayNeverCome || declared === undefined || !(Number(declared) <= drainLimit)) endConnectionWith(res);
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
