import type { Socket } from 'node:net';
import { isIP, connect as tcpConnect } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Dispatcher } from 'undici';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import { HTTP_TOKEN, ResponseParser, ResponseProtocolError } from './response-parser.js';

/**
 * How many requests may wait for their answers on one connection. With a bulk add's requests
 * in flight spread over `connections / PIPELINING` connections, each write and each read of a
 * socket carries several requests or answers: fewer system calls per record, on both sides.
 */
export const PIPELINING = 8;

/** undici's connect time-out, kept. */
const CONNECT_TIMEOUT_MS = 10_000;
/** An idle connection is closed after this long (undici's keep-alive default), or 1 s before the server's hint. */
const IDLE_MS = 4_000;
/** TCP keep-alive probes start after this long idle. */
const KEEP_ALIVE_DELAY_MS = 60_000;
/** What one read of a socket takes at most (Node's own default). */
const READ_BUFFER_BYTES = 64 * 1024;

/** The handler callbacks undici calls (its "legacy" handler), which the client's AnswerCollector implements. */
type Handler = Dispatcher.DispatchHandler & {
  onConnect(abort: (error?: Error) => void): void;
  onHeaders(status: number, rawHeaders: string[], resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: string[] | null): void;
  onError(error: Error): void;
};

/** One request on its way: its text, and whom to tell of its answer. */
interface Exchange {
  readonly text: string;
  readonly handler: Handler;
  /** Given up on (aborted) or answered: not written again. */
  done: boolean;
}

/**
 * Sends the POSTs undici may pipeline (`idempotent`, `blocking: false`: PlantClient marks
 * its POST /plants so, and says there why that is safe) over HTTP/1.1 connections of its own,
 * up to PIPELINING on each; every other request goes to `fallback`, an undici dispatcher made
 * when the first of them comes (so that a run that sends none never loads it).
 *
 * Why not undici for these too: a bulk add is tens of thousands of small POSTs, and undici
 * spends on each a request object, header validation, a system call and an llhttp
 * (WebAssembly) run with a Buffer per header of the answer: a plain undici Pool that does nothing
 * else stays well short of what wrk gets from the same server (bench b8). Here
 * a turn's requests go out as one string per connection, and an answer's head is read as one
 * string (ResponseParser).
 *
 * What undici does for a pipelined request, this does the same way, so that the client's
 * accounting holds for both: the handler's onConnect is called each time the request is
 * written (a replay after a dropped connection counts as a send); when a connection drops,
 * the request at the head of its pipeline fails with the error, and those behind it are
 * written again on another connection; when a connection cannot be made, every request waiting
 * for it fails with that error (ECONNREFUSED, a TLS error, UND_ERR_CONNECT_TIMEOUT); an aborted
 * request fails, and the connection it was on is given up, the others on it written again.
 */
export class PipeliningDispatcher extends DispatcherBase {
  readonly #makeFallback: () => Promise<Dispatcher>;
  #fallback: Promise<Dispatcher> | undefined;
  readonly #maxConnections: number;
  readonly #ca: string[] | undefined;
  readonly #origins = new Map<string, Origin>();
  readonly #leaveIdleToExit: boolean;
  #closed = false;

  constructor(options: {
    fallback: () => Promise<Dispatcher>;
    connections: number;
    ca?: string[] | undefined;
    /**
     * The process ends once this is closed: close() leaves a connection that is open and idle
     * to the exit, which closes it. Its socket no longer holds the process (it is unref'd while
     * idle), and closing it first would only run Node's socket teardown for nothing.
     */
    leaveIdleToExit?: boolean;
  }) {
    super();
    this.#makeFallback = options.fallback;
    this.#maxConnections = Math.max(1, Math.ceil(options.connections / PIPELINING));
    this.#ca = options.ca;
    this.#leaveIdleToExit = options.leaveIdleToExit ?? false;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const body = options.body;
    if (
      // Only a POST: a HEAD's answer, say, has a length and no body, which the parser would wait for.
      options.method !== 'POST' ||
      options.idempotent !== true ||
      options.blocking !== false ||
      typeof body !== 'string' ||
      typeof options.origin !== 'string' ||
      this.#closed
    ) {
      return this.#toFallback(options, handler);
    }
    let origin = this.#origins.get(options.origin);
    if (origin === undefined) {
      const url = new URL(options.origin);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return this.#toFallback(options, handler);
      origin = new Origin(url, this.#maxConnections, this.#ca, this.#leaveIdleToExit);
      this.#origins.set(options.origin, origin);
    }
    const headers = origin.headerBlock(options.headers);
    if (headers === undefined) return this.#toFallback(options, handler);
    const length = body.length;
    // A body of ASCII only (most records) has as many bytes as characters; else count them.
    const bytes = isAscii(body) ? length : Buffer.byteLength(body);
    const text = `${options.method} ${options.path} HTTP/1.1\r\n${headers}content-length: ${bytes}\r\n\r\n${body}`;
    origin.send({ text, handler: handler as Handler, done: false });
    return true;
  }

  /**
   * Hands a request to the fallback, made first if this is its first. The handler hears of a
   * fallback that cannot be made as of any failure to send (onError).
   */
  #toFallback(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const failed = (error: unknown) =>
      (handler as Handler).onError(error instanceof Error ? error : new Error(String(error)));
    if (this.#fallback === undefined) {
      // Closed before it was ever needed: as undici's closed agent answers.
      if (this.#closed) {
        queueMicrotask(() => failed(codedError('The client is closed', 'UND_ERR_CLOSED')));
        return true;
      }
      const made = this.#makeFallback();
      // A fallback that cannot be made fails each request sent to it, not the process.
      made.catch(() => undefined);
      this.#fallback = made;
    }
    this.#fallback.then((fallback) => {
      try {
        fallback.dispatch(options, handler);
      } catch (error) {
        failed(error);
      }
    }, failed);
    return true;
  }

  /** Waits for the requests in flight, then closes every connection (and the fallback's). */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | undefined {
    this.#closed = true;
    const closed = Promise.all([
      ...[...this.#origins.values()].map((origin) => origin.close()),
      // A fallback that could not be made has nothing to close.
      this.#fallback?.then(
        (fallback) => fallback.close(),
        () => undefined,
      ),
    ]).then(() => undefined);
    if (callback === undefined) return closed;
    void closed.then(callback);
    return undefined;
  }

  /** Closes every connection now; requests in flight fail with `error`. */
  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(
    errorOrCallback?: Error | null | (() => void),
    maybeCallback?: () => void,
  ): Promise<void> | undefined {
    const error = typeof errorOrCallback === 'function' ? null : (errorOrCallback ?? null);
    const callback = typeof errorOrCallback === 'function' ? errorOrCallback : maybeCallback;
    this.#closed = true;
    for (const origin of this.#origins.values()) {
      origin.destroy(error ?? codedError('The client is destroyed', 'UND_ERR_DESTROYED'));
    }
    const destroyed = Promise.resolve(
      this.#fallback?.then(
        (fallback) => fallback.destroy(error),
        () => undefined,
      ),
    ).then(() => undefined);
    if (callback === undefined) return destroyed;
    void destroyed.then(callback);
    return undefined;
  }
}

/** The connections to one origin, and the requests waiting for room on them. */
class Origin {
  readonly #url: URL;
  readonly #maxConnections: number;
  readonly #ca: string[] | undefined;
  readonly #connections: Connection[] = [];
  /** Requests waiting for a connection with room (every one full). */
  readonly #waiting: Exchange[] = [];
  /** The headers object last given, and its lines: the client gives the same object each time. */
  #headersGiven: unknown;
  #headerLines: string | undefined;
  #closing: (() => void) | undefined;
  readonly #leaveIdleToExit: boolean;

  constructor(url: URL, maxConnections: number, ca: string[] | undefined, leaveIdleToExit: boolean) {
    this.#url = url;
    this.#maxConnections = maxConnections;
    this.#ca = ca;
    this.#leaveIdleToExit = leaveIdleToExit;
  }

  /** The request's header lines (host first), or undefined for headers this does not send (undici then does, or refuses them). */
  headerBlock(headers: Dispatcher.DispatchOptions['headers']): string | undefined {
    if (headers === this.#headersGiven && this.#headerLines !== undefined) return this.#headerLines;
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers) || Symbol.iterator in headers) {
      return undefined;
    }
    let lines = `host: ${this.#url.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || !HTTP_TOKEN.test(name) || !headerValue.test(value)) return undefined;
      const key = name.toLowerCase();
      // These are the connection's to decide, and the request's length is counted here.
      if (key === 'host' || key === 'content-length' || key === 'connection' || key === 'transfer-encoding') {
        return undefined;
      }
      lines += `${name}: ${value}\r\n`;
    }
    this.#headersGiven = headers;
    this.#headerLines = lines;
    return lines;
  }

  send(exchange: Exchange): void {
    const connection = this.#withRoom();
    if (connection === undefined) this.#waiting.push(exchange);
    else connection.send(exchange);
  }

  /** A connection with room for one more request: the first open one that has it, or a new one. */
  #withRoom(): Connection | undefined {
    for (const connection of this.#connections) {
      if (connection.usable && connection.inFlight < PIPELINING) return connection;
    }
    // (A connection that is given up leaves this list as it goes: every one here is usable.)
    if (this.#connections.length >= this.#maxConnections) return undefined;
    const connection = new Connection(this.#url, this.#ca, this);
    this.#connections.push(connection);
    return connection;
  }

  /** A connection has room again: the longest waiting requests go out on it. */
  roomOn(connection: Connection): void {
    while (this.#waiting.length > 0 && connection.usable && connection.inFlight < PIPELINING) {
      const next = this.#waiting.shift() as Exchange;
      if (!next.done) connection.send(next);
    }
    this.#checkClosed();
  }

  /** A connection is gone; `replay`: its requests that must be written again, in order. */
  gone(connection: Connection, replay: Exchange[]): void {
    const index = this.#connections.indexOf(connection);
    if (index !== -1) this.#connections.splice(index, 1);
    // Ahead of those waiting: they were sent first.
    this.#waiting.unshift(...replay.filter((exchange) => !exchange.done));
    while (this.#waiting.length > 0) {
      const target = this.#withRoom();
      if (target === undefined) break;
      this.roomOn(target);
    }
    this.#checkClosed();
  }

  hasOtherConnection(connection: Connection): boolean {
    return this.#connections.some((other) => other !== connection && other.usable);
  }

  /** Requests to fail rather than send, when a connection could not be made: those waiting too. */
  takeWaiting(): Exchange[] {
    return this.#waiting.splice(0);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#closing = resolve;
      this.#checkClosed();
    });
  }

  destroy(error: Error): void {
    for (const exchange of this.#waiting.splice(0)) fail(exchange, error);
    for (const connection of [...this.#connections]) connection.destroy(error, false);
    this.#closing?.();
  }

  #checkClosed(): void {
    if (this.#closing === undefined || this.#waiting.length > 0) return;
    if (this.#connections.some((connection) => connection.inFlight > 0)) return;
    for (const connection of [...this.#connections]) {
      if (!(this.#leaveIdleToExit && connection.idle)) connection.end();
    }
    this.#closing();
  }
}

/** One HTTP/1.1 connection and the requests written on it, oldest first. */
class Connection {
  readonly #socket: Socket;
  readonly #origin: Origin;
  readonly #parser: ResponseParser;
  /** Requests written (or to be, once connected), in the order their answers come. */
  readonly #queue: Exchange[] = [];
  #connected = false;
  /** Requests of this turn not yet handed to the socket: one write per turn. */
  #outgoing = '';
  #flushScheduled = false;
  #idleTimer: NodeJS.Timeout | undefined;
  #connectTimer: NodeJS.Timeout | undefined;
  #gone = false;

  constructor(url: URL, ca: string[] | undefined, origin: Origin) {
    this.#origin = origin;
    this.#parser = new ResponseParser({
      onHead: (status, rawHeaders, statusText) => this.#onHead(status, rawHeaders, statusText),
      onBody: (chunk) => this.#onBody(chunk),
      onEnd: (keepAlive) => this.#onEnd(keepAlive),
    });
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const tls = url.protocol === 'https:';
    const port = Number(url.port) || (tls ? 443 : 80);
    // Reads land in one buffer of the connection's, handed to the parser as they come rather
    // than pushed through the socket's Readable (a Buffer and a 'data' event each).
    const onread = {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (length: number, buffer: Uint8Array) => {
        this.#onData(Buffer.from(buffer.buffer, buffer.byteOffset, length));
        return true;
      },
    };
    const socket = tls
      ? // node:tls when it is needed: loading it costs every command (Node 22: ~60 million
        // instructions, most of them reading the root certificates), https or not.
        process.getBuiltinModule('node:tls').connect({
          host,
          port,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          ...(ca === undefined ? {} : { ca }),
          ALPNProtocols: ['http/1.1'],
          // tls.connect hands its socket options to net.Socket (Node's docs), onread among them.
          onread,
        } as ConnectionOptions)
      : tcpConnect({
          host,
          port,
          noDelay: true,
          keepAlive: true,
          keepAliveInitialDelay: KEEP_ALIVE_DELAY_MS,
          onread,
        });
    this.#socket = socket;
    if (tls) {
      // Node 20's tls.connect does not pass these two options on to its socket.
      socket.setNoDelay(true);
      socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    }
    this.#connectTimer = setTimeout(() => {
      const message = `Connect Timeout Error (attempted address: ${url.host}, timeout: ${CONNECT_TIMEOUT_MS}ms)`;
      this.destroy(codedError(message, 'UND_ERR_CONNECT_TIMEOUT'), false);
    }, CONNECT_TIMEOUT_MS);
    this.#connectTimer.unref();
    socket.once(tls ? 'secureConnect' : 'connect', () => this.#onConnected());
    socket.on('end', () => this.#onClosed());
    socket.on('error', (error) => this.destroy(error, this.#connected));
    socket.on('close', () => this.#onClosed());
  }

  get inFlight(): number {
    return this.#queue.length;
  }

  /** Connected, with no request on it: its socket does not hold the process (see #idle). */
  get idle(): boolean {
    return this.#connected && !this.#gone && this.#queue.length === 0;
  }

  /** Takes requests: not failed, not ended, not told by the server to close. */
  get usable(): boolean {
    return !this.#gone;
  }

  send(exchange: Exchange): void {
    this.#queue.push(exchange);
    if (this.#idleTimer !== undefined) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = undefined;
      this.#socket.ref();
    }
    if (this.#connected) this.#write(exchange);
  }

  /** Written now (to the socket at the end of the turn): a send, as undici counts them. */
  #write(exchange: Exchange): void {
    this.#outgoing += exchange.text;
    exchange.handler.onConnect((error) => this.#abort(exchange, error));
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#outgoing === '' || this.#gone) return;
    this.#socket.write(this.#outgoing);
    this.#outgoing = '';
  }

  #onConnected(): void {
    this.#connected = true;
    clearTimeout(this.#connectTimer);
    // Requests given up on while it connected are not written (nor waited for).
    for (let at = this.#queue.length - 1; at >= 0; at--)
      if ((this.#queue[at] as Exchange).done) this.#queue.splice(at, 1);
    for (const exchange of this.#queue) this.#write(exchange);
    if (this.#queue.length === 0) this.#idle();
  }

  #onData(data: Buffer): void {
    if (this.#queue.length === 0 && this.#parser.idle) {
      this.destroy(new ResponseProtocolError('UND_ERR_SOCKET', 'an answer to no request'), true);
      return;
    }
    try {
      this.#parser.execute(data);
    } catch (error) {
      this.destroy(error as Error, true);
    }
  }

  #onHead(status: number, rawHeaders: string[], statusText: string): void {
    const exchange = this.#queue[0];
    if (exchange === undefined) throw new ResponseProtocolError('UND_ERR_SOCKET', 'an answer to no request');
    if (!exchange.done) exchange.handler.onHeaders(status, rawHeaders, noop, statusText);
  }

  #onBody(chunk: Buffer): void {
    const exchange = this.#queue[0];
    // A copy: the chunk is of the read buffer, which the next read overwrites.
    if (exchange !== undefined && !exchange.done) exchange.handler.onData(Buffer.from(chunk));
  }

  #onEnd(keepAlive: boolean): void {
    const exchange = this.#queue.shift();
    if (exchange !== undefined && !exchange.done) {
      exchange.done = true;
      exchange.handler.onComplete(null);
    }
    if (!keepAlive) {
      // The server closes after this answer: what was written behind it goes out elsewhere.
      this.#retire(undefined);
      return;
    }
    if (this.#queue.length === 0) this.#idle();
    this.#origin.roomOn(this);
  }

  /** No request in flight: the socket no longer holds the process, and is closed if it stays idle. */
  #idle(): void {
    this.#socket.unref();
    const hint = this.#parser.keepAliveHintSeconds;
    const ms = hint === undefined ? IDLE_MS : Math.max(0, Math.min(IDLE_MS, hint * 1000 - 1000));
    this.#idleTimer = setTimeout(() => this.#retire(undefined), ms);
    this.#idleTimer.unref();
  }

  /** Aborted by the client (its time-out, or an answer too long): that request fails; the others on the connection go out again. */
  #abort(exchange: Exchange, error: Error | undefined): void {
    if (exchange.done) return;
    fail(exchange, error ?? codedError('Request aborted', 'UND_ERR_ABORTED'));
    this.#retire(undefined);
  }

  /** The connection ends; requests with no answer yet go out on another, except `failHead`'s error for the first. */
  #retire(failHead: Error | undefined): void {
    if (this.#gone) return;
    const queue = this.#shutDown();
    if (failHead !== undefined && queue.length > 0) fail(queue.shift() as Exchange, failHead);
    this.#origin.gone(this, queue);
  }

  /** Stops everything of the connection; the requests that were on it, in order. */
  #shutDown(): Exchange[] {
    this.#gone = true;
    this.#parser.stop();
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#connectTimer);
    this.#socket.destroy();
    return this.#queue.splice(0);
  }

  /**
   * The connection failed. `written`: requests were on it (it had connected): the head fails
   * and the rest go out again, as undici does. Else it never connected: every request waiting
   * for it, and those waiting for room, fail with the error.
   */
  destroy(error: Error, written: boolean): void {
    if (this.#gone) return;
    if (written) {
      this.#retire(error);
      return;
    }
    const queue = this.#shutDown();
    // Those waiting for room fail too, unless another connection is there to take them.
    const waiting = this.#origin.hasOtherConnection(this) ? [] : this.#origin.takeWaiting();
    for (const exchange of [...queue, ...waiting]) fail(exchange, error);
    this.#origin.gone(this, []);
  }

  #onClosed(): void {
    if (this.#gone) return;
    if (!this.#connected) {
      this.destroy(codedError('the connection closed before it was made', 'UND_ERR_SOCKET'), false);
      return;
    }
    try {
      // An answer that runs to the connection's end is whole now (and retires the connection).
      this.#parser.finish();
    } catch (cut) {
      this.#retire(cut as Error);
      return;
    }
    // Requests written with no answer begun when the server closed: the head fails (it may
    // have been applied), the rest go out again; undici does the same.
    this.#retire(this.#queue.length > 0 ? codedError('other side closed', 'UND_ERR_SOCKET') : undefined);
  }

  /** Closes an idle connection. */
  end(): void {
    this.#retire(undefined);
  }
}

function fail(exchange: Exchange, error: Error): void {
  if (exchange.done) return;
  exchange.done = true;
  exchange.handler.onError(error);
}

function noop(): void {}

/** An error as undici's carry theirs: its `code` (UND_ERR_…), which the client reads. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A header value of printable ASCII and tab (anything else goes through undici). */
const headerValue = /^[\t\x20-\x7e]*$/;

function isAscii(text: string): boolean {
  return !/[\u0080-\uffff]/.test(text);
}
