import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/**
 * Milliseconds on a monotonic clock. process.hrtime is there from the start, where the
 * `performance` global loads node:perf_hooks and its ten modules on first use: a one-record add
 * had them loaded for two readings of the clock.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

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
 * Collects one answer straight from undici's dispatch handler (its controller API), for the
 * client's own requests: the status, content-type, retry-after and link, and the body in one
 * Buffer. Lighter than `dispatcher.request()`, which builds a Readable stream and a promise chain
 * per request: with a bulk add's tens of thousands of requests, that was most of what the client
 * spent on each (see `bench/rows/bulk.ts`).
 *
 * undici calls onRequestStart each time it writes the request: more than once when a pipelined
 * connection dropped and it sent the request again on a new one (`sends`).
 *
 * `deadline` is when the client gives up on the request: `timeoutMs` after it was handed to
 * undici, while undici has not written it; once written, the start of its answer is undici's
 * headers time-out to bound, which counts from the moment the request is at the head of its
 * connection: so one answer that never comes costs the requests pipelined behind it no time-out
 * of their own (when its time is up, undici writes them again on another connection at once).
 * Meanwhile the deadline is only a backstop (twice `timeoutMs` after the last write: a server
 * that sends 1xx for ever); once the answer has started, the whole of it must come within
 * `timeoutMs` of the last write (a body that drips), or at once when its head came later.
 *
 * `answer` settles exactly once, whatever undici does, and once it has, undici is never left
 * holding the request: a request given up before undici wrote it is aborted the moment undici
 * starts it, and an answer is never paused (a paused answer that nobody resumes holds its
 * connection, and every request pipelined behind it, for good).
 */
export class AnswerCollector implements Dispatcher.DispatchHandler {
  sends = 0;
  /** Headers arrived (a final status): from here on the request was answered. */
  answered = false;
  /** Set by the client when the whole answer did not arrive within its time-out. */
  deadlinePassed = false;
  /** When the client gives up on the request (monotonicMs; see above). */
  deadline: number;
  readonly #timeoutMs: number;
  #writtenAt = 0;
  #status = 0;
  #contentType = '';
  #retryAfter: string | undefined;
  #link: string | undefined;
  #first: Buffer | undefined;
  #chunks: Buffer[] | undefined;
  #size = 0;
  /** undici's controller of the write in progress (a replay brings a new one). */
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the request was given up on, for undici to be told when it starts it. */
  #givenUp: Error | undefined;
  #settled = false;
  readonly #limit: number;
  #resolve!: (answer: CollectedAnswer) => void;
  #reject!: (error: unknown) => void;
  /** The whole answer, or why none came. */
  readonly answer = new Promise<CollectedAnswer>((resolve, reject) => {
    this.#resolve = resolve;
    this.#reject = reject;
  });

  constructor(limit: number, timeoutMs: number) {
    this.#limit = limit;
    this.#timeoutMs = timeoutMs;
    this.deadline = monotonicMs() + timeoutMs;
  }

  /**
   * Gives up on the request: `answer` rejects with `error` now, and undici is told to drop the
   * request, now if it has started it, else when it does.
   */
  abort(error: Error): void {
    this.#givenUp ??= error;
    this.#fail(error);
    this.#controller?.abort(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#givenUp !== undefined) {
      controller.abort(this.#givenUp);
      return;
    }
    this.sends++;
    this.#writtenAt = monotonicMs();
    this.deadline = this.#writtenAt + 2 * this.#timeoutMs;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx (103 Early Hints): informational, the answer is still to come.
    if (status < 200) return;
    this.answered = true;
    this.deadline = Math.max(this.#writtenAt + this.#timeoutMs, monotonicMs());
    this.#status = status;
    // As the client read them before: a repeated content-type joined, a repeated retry-after or link not taken.
    const contentType = headers['content-type'];
    this.#contentType =
      contentType === undefined ? '' : Array.isArray(contentType) ? contentType.join(',') : contentType;
    const retryAfter = headers['retry-after'];
    this.#retryAfter = typeof retryAfter === 'string' ? retryAfter : undefined;
    const link = headers.link;
    this.#link = typeof link === 'string' ? link : undefined;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.#limit) {
      // More than any answer of the interface: keep what came before, mark it cut, and stop reading.
      this.#size -= chunk.length;
      this.#finish(true);
      controller.abort(new Error(`the answer is longer than ${this.#limit} bytes`));
      return;
    }
    this.#push(chunk);
  }

  onResponseEnd(): void {
    this.#finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: Error): void {
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
      retryAfter: this.#retryAfter,
      link: this.#link,
      sends: this.sends,
    });
  }
}

const EMPTY = Buffer.alloc(0);
