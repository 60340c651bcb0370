/**
 * An HTTP/1.1 response parser for a connection whose requests are pipelined
 * (PipeliningDispatcher): answers one after another, each framed by content-length, chunked
 * transfer coding, or the connection's end (RFC 9112, section 6). Strict where llhttp (undici's
 * parser) is strict by default: CRLF line ends, no folded header lines, one content-length (or
 * several equal ones), never content-length beside transfer-encoding.
 */

/** What a parsed answer reports, in order: its head, its body in pieces, its end. */
export interface ResponseEvents {
  /** A final answer's status line and headers (names and values as sent: [name, value, name, value…]). */
  onHead(status: number, rawHeaders: string[], statusText: string): void;
  onBody(chunk: Buffer): void;
  /** The answer is whole. `keepAlive`: the connection may carry the next one (not `connection: close`). */
  onEnd(keepAlive: boolean): void;
}

/** A response that is not HTTP/1.1 as the parser reads it; `code` is llhttp's name for the fault. */
export class ResponseProtocolError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ResponseProtocolError';
    this.code = code;
  }
}

/** The longest status line and header section read: Node's and undici's default (16 KiB). */
export const MAX_HEAD_BYTES = 16 * 1024;

type State =
  | 'head'
  | 'length'
  | 'chunk-size'
  | 'chunk-data'
  | 'chunk-end'
  | 'trailers'
  /** A body that runs to the connection's end. */
  | 'to-close';

/** RFC 9110's token: what a header's name is made of. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([^\0]*))?$/;
const badValue = /[\0\r\n]/;

export class ResponseParser {
  /** The server's `keep-alive: timeout=N` hint, in seconds, from the last answer that gave one. */
  keepAliveHintSeconds: number | undefined;
  readonly #events: ResponseEvents;
  #state: State = 'head';
  /** Bytes of a head or a chunk-size line that began in an earlier chunk. */
  #pending: Buffer | undefined;
  /** Body bytes still to come: of the answer (`length`) or of the chunk (`chunk-data`). */
  #remaining = 0;
  #keepAlive = true;
  #stopped = false;

  constructor(events: ResponseEvents) {
    this.#events = events;
  }

  /** Between answers, with nothing of the next one read. */
  get idle(): boolean {
    return this.#state === 'head' && this.#pending === undefined;
  }

  /** No more parsing: the connection is being given up (the rest of a chunk is not read). */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Reads the bytes that came; throws ResponseProtocolError for a response that is not HTTP/1.1.
   * `data` is only read during the call (the socket reads into the same memory next time): what
   * is kept of it is copied, and what onBody is given is the caller's to copy.
   */
  execute(data: Buffer): void {
    let chunk = data;
    if (this.#pending !== undefined) {
      chunk = Buffer.concat([this.#pending, data]);
      this.#pending = undefined;
    }
    let at = 0;
    while (at < chunk.length && !this.#stopped) {
      switch (this.#state) {
        case 'head':
          at = this.#head(chunk, at);
          break;
        case 'length':
          at = this.#body(chunk, at);
          if (this.#remaining === 0) this.#end();
          break;
        case 'chunk-size':
          at = this.#chunkSize(chunk, at);
          break;
        case 'chunk-data':
          at = this.#body(chunk, at);
          if (this.#remaining === 0) this.#state = 'chunk-end';
          break;
        case 'chunk-end':
          at = this.#lineEnd(chunk, at);
          break;
        case 'trailers':
          at = this.#trailers(chunk, at);
          break;
        case 'to-close':
          this.#events.onBody(at === 0 ? chunk : chunk.subarray(at));
          at = chunk.length;
          break;
      }
    }
  }

  /**
   * The connection ended. An answer that runs to the end is then whole (true); one cut short
   * throws; between answers, false.
   */
  finish(): boolean {
    if (this.#stopped) return false;
    if (this.#state === 'to-close') {
      this.#keepAlive = false;
      this.#end();
      return true;
    }
    if (!this.idle) throw new ResponseProtocolError('UND_ERR_SOCKET', 'other side closed in the middle of an answer');
    return false;
  }

  /** Body bytes, up to what is still to come of the answer or the chunk; where reading goes on. */
  #body(chunk: Buffer, at: number): number {
    const end = at + Math.min(this.#remaining, chunk.length - at);
    this.#remaining -= end - at;
    this.#events.onBody(chunk.subarray(at, end));
    return end;
  }

  #end(): void {
    this.#state = 'head';
    this.#events.onEnd(this.#keepAlive);
  }

  /** Keeps what is left of `chunk` from `at` for the next; `limit`: the most a line may take. */
  #wait(chunk: Buffer, at: number, limit: number, what: string): number {
    if (chunk.length - at > limit) {
      throw new ResponseProtocolError('UND_ERR_HEADERS_OVERFLOW', `${what} longer than ${limit} bytes`);
    }
    this.#pending = Buffer.from(chunk.subarray(at));
    return chunk.length;
  }

  #head(chunk: Buffer, at: number): number {
    const end = chunk.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) return this.#wait(chunk, at, MAX_HEAD_BYTES, 'the answer’s head is');
    if (end - at > MAX_HEAD_BYTES) {
      throw new ResponseProtocolError(
        'UND_ERR_HEADERS_OVERFLOW',
        `the answer’s head is longer than ${MAX_HEAD_BYTES} bytes`,
      );
    }
    const lines = chunk.toString('latin1', at, end).split('\r\n');
    const first = statusLine.exec(lines[0] ?? '');
    if (first === null) throw new ResponseProtocolError('HPE_INVALID_CONSTANT', 'not an HTTP/1.1 status line');
    const status = Number(first[2]);
    const rawHeaders: string[] = [];
    let contentLength = -1;
    let transferEncoding: string | undefined;
    let close = false;
    let keepAlive = false;
    for (let index = 1; index < lines.length; index++) {
      const line = lines[index] as string;
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!HTTP_TOKEN.test(name))
        throw new ResponseProtocolError('HPE_INVALID_HEADER_TOKEN', 'a header line that is not `name: value`');
      const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
      if (badValue.test(value))
        throw new ResponseProtocolError('HPE_INVALID_HEADER_TOKEN', `a character not allowed in header ${name}`);
      rawHeaders.push(name, value);
      // Only the names of the headers that frame the answer are compared: 14, 17, 10 characters.
      const length = name.length;
      if (length !== 14 && length !== 17 && length !== 10) continue;
      const key = name.toLowerCase();
      if (key === 'content-length') {
        if (!/^\d{1,15}$/.test(value))
          throw new ResponseProtocolError('HPE_INVALID_CONTENT_LENGTH', 'an invalid content-length');
        const given = Number(value);
        if (contentLength !== -1 && contentLength !== given) {
          throw new ResponseProtocolError('HPE_UNEXPECTED_CONTENT_LENGTH', 'two different content-lengths');
        }
        contentLength = given;
      } else if (key === 'transfer-encoding') {
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
      } else if (key === 'connection') {
        for (const option of value.toLowerCase().split(',')) {
          const trimmed = option.trim();
          if (trimmed === 'close') close = true;
          else if (trimmed === 'keep-alive') keepAlive = true;
        }
      } else if (key === 'keep-alive') {
        const timeout = /(?:^|[,;\s])timeout=(\d+)/i.exec(value);
        if (timeout !== null) this.keepAliveHintSeconds = Number(timeout[1]);
      }
    }
    const next = end + 4;
    if (status < 200) {
      // 1xx: informational (100 Continue, 103 Early Hints); the answer itself follows. A 101
      // switches protocols, which no request of ours asks for.
      if (status === 101)
        throw new ResponseProtocolError('HPE_INVALID_CONSTANT', 'an unasked-for 101 Switching Protocols');
      return next;
    }
    if (transferEncoding !== undefined && contentLength !== -1) {
      throw new ResponseProtocolError('HPE_UNEXPECTED_CONTENT_LENGTH', 'content-length beside transfer-encoding');
    }
    // HTTP/1.0 keeps the connection only when it says so; 1.1 unless it says close.
    this.#keepAlive = first[1] === '0' ? keepAlive && !close : !close;
    this.#events.onHead(status, rawHeaders, first[3] ?? '');
    if (this.#stopped) return next;
    if (status === 204 || status === 304) {
      this.#end();
    } else if (transferEncoding !== undefined) {
      // Chunked when it is the last coding; any other last coding runs to the connection's end.
      const codings = transferEncoding.toLowerCase().split(',');
      this.#state = codings[codings.length - 1]?.trim() === 'chunked' ? 'chunk-size' : 'to-close';
    } else if (contentLength > 0) {
      this.#remaining = contentLength;
      this.#state = 'length';
    } else if (contentLength === 0) {
      this.#end();
    } else {
      this.#state = 'to-close';
    }
    return next;
  }

  #chunkSize(chunk: Buffer, at: number): number {
    const end = chunk.indexOf('\r\n', at, 'latin1');
    if (end === -1) return this.#wait(chunk, at, 1024, 'a chunk-size line is');
    const line = chunk.toString('latin1', at, end);
    const size = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\0\r\n]*)?$/.exec(line);
    if (size === null) throw new ResponseProtocolError('HPE_INVALID_CHUNK_SIZE', 'an invalid chunk size');
    this.#remaining = Number.parseInt(size[1] as string, 16);
    this.#state = this.#remaining === 0 ? 'trailers' : 'chunk-data';
    return end + 2;
  }

  /** The CRLF after a chunk's data. */
  #lineEnd(chunk: Buffer, at: number): number {
    if (chunk.length - at < 2) return this.#wait(chunk, at, 2, 'a chunk end is');
    if (chunk[at] !== 13 || chunk[at + 1] !== 10) {
      throw new ResponseProtocolError('HPE_STRICT', 'a chunk not followed by CRLF');
    }
    this.#state = 'chunk-size';
    return at + 2;
  }

  /** After the last chunk: trailer lines (read, not kept), then an empty line. */
  #trailers(chunk: Buffer, at: number): number {
    if (chunk.length - at < 2) return this.#wait(chunk, at, 2, 'the trailers are');
    if (chunk[at] === 13 && chunk[at + 1] === 10) {
      this.#end();
      return at + 2;
    }
    const end = chunk.indexOf('\r\n\r\n', at, 'latin1');
    if (end === -1) return this.#wait(chunk, at, MAX_HEAD_BYTES, 'the trailers are');
    this.#end();
    return end + 4;
  }
}
