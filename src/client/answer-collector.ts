import type { Dispatcher } from 'undici';

/** What came back for one request: the status, the few headers the client reads, and the body. */
export interface CollectedAnswer {
  status: number;
  contentType: string;
  /** The body's bytes as they came (only the first `limit` when truncated). */
  body: Buffer;
  /** Cut at `limit` bytes. */
  truncated: boolean;
  retryAfter: string | undefined;
  link: string | undefined;
  /** How many times undici wrote the request: above 1 when it replayed it after a dropped pipeline. */
  sends: number;
}

/**
 * Collects one answer straight from undici's dispatch callbacks, for the client's own requests:
 * the status, content-type, retry-after and link, and the body in one Buffer. Lighter than
 * `dispatcher.request()`, which builds a Readable stream, a header object of every header and a
 * promise chain per request: with a bulk add's tens of thousands of requests, that was most of
 * what the client spent on each (see `bench/rows/bulk.ts`).
 *
 * undici calls onConnect each time it writes the request: more than once when a pipelined
 * connection dropped and it sent the request again on a new one (`sends`).
 */
export class AnswerCollector implements Dispatcher.DispatchHandler {
  sends = 0;
  /** Headers arrived (a final status): from here on the request was answered. */
  answered = false;
  /** Set by the client when the whole answer did not arrive within its time-out. */
  deadlinePassed = false;
  /** When the client gives up on the whole answer (Transport's monotonic milliseconds). */
  readonly deadline: number;
  #status = 0;
  #contentType = '';
  #retryAfter: string | undefined;
  #link: string | undefined;
  #first: Buffer | undefined;
  #chunks: Buffer[] | undefined;
  #size = 0;
  #abort: ((error?: Error) => void) | undefined;
  #settled = false;
  readonly #limit: number;
  #resolve!: (answer: CollectedAnswer) => void;
  #reject!: (error: unknown) => void;
  /** The whole answer, or why none came. */
  readonly answer = new Promise<CollectedAnswer>((resolve, reject) => {
    this.#resolve = resolve;
    this.#reject = reject;
  });

  constructor(limit: number, deadline: number) {
    this.#limit = limit;
    this.deadline = deadline;
  }

  /** Gives up on the request (its deadline passed): it rejects with `error`. */
  abort(error: Error): void {
    if (this.#abort !== undefined) this.#abort(error);
    else this.onError(error);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.sends++;
    this.#abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null): boolean {
    // 1xx (103 Early Hints): informational, the answer is still to come.
    if (status < 200) return true;
    this.answered = true;
    this.#status = status;
    if (rawHeaders !== null) {
      for (let at = 0; at + 1 < rawHeaders.length; at += 2) {
        const name = rawHeaders[at] as Buffer | string;
        // Only the names of the few headers read are decoded: content-type (12), retry-after (11), link (4).
        const length = name.length;
        if (length !== 12 && length !== 11 && length !== 4) continue;
        const key = name.toString('latin1').toLowerCase();
        const value = (rawHeaders[at + 1] as Buffer | string).toString('latin1');
        // As undici's header object reads them: a repeated content-type joined, a repeated
        // retry-after or link (an array there) not taken.
        if (key === 'content-type')
          this.#contentType = this.#contentType === '' ? value : `${this.#contentType},${value}`;
        else if (key === 'retry-after') this.#retryAfter = this.#retryAfter === undefined ? value : REPEATED;
        else if (key === 'link') this.#link = this.#link === undefined ? value : REPEATED;
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return false;
    this.#size += chunk.length;
    if (this.#size > this.#limit) {
      // More than any answer of the interface: keep what came before, mark it cut, and stop reading.
      this.#size -= chunk.length;
      this.#finish(true);
      this.#abort?.();
      return false;
    }
    this.#push(chunk);
    return true;
  }

  onComplete(): void {
    this.#finish(false);
  }

  onError(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(error);
  }

  #push(chunk: Buffer): void {
    if (this.#first === undefined) {
      this.#first = chunk;
      return;
    }
    this.#chunks ??= [this.#first];
    this.#chunks.push(chunk);
  }

  #finish(truncated: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    const body = this.#chunks !== undefined ? Buffer.concat(this.#chunks, this.#size) : this.#first;
    this.#resolve({
      status: this.#status,
      contentType: this.#contentType,
      body: body ?? EMPTY,
      truncated,
      retryAfter: this.#retryAfter === REPEATED ? undefined : this.#retryAfter,
      link: this.#link === REPEATED ? undefined : this.#link,
      sends: this.sends,
    });
  }
}

const EMPTY = Buffer.alloc(0);
/** A header given twice, where one value is expected. */
const REPEATED = '\u0000repeated';
