import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { formatBaseUrl } from './base-url.js';
import {
  classifyNetworkFailure,
  errorCode,
  isClosedConnection,
  UnreachableError,
  unreachableMessage,
} from './errors.js';
import { type Retryable, type RetryPolicy, retryableFailure } from './retry-policy.js';

/** The most of a response body we read; a Plant or an Error is a few hundred bytes. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface Answer {
  status: number;
  contentType: string;
  /** The body (its first MAX_RESPONSE_BYTES, then `…`, when it was longer). */
  text: string;
  retryAfter: string | undefined;
  link: string | undefined;
  /** How many times undici wrote the request: above 1 when it replayed it after a dropped pipeline. */
  sends: number;
}

export interface PlantClientOptions {
  baseUrl: URL;
  /** Sent as `Authorization: Bearer <token>`; never logged. None: the request goes unauthenticated. */
  token: string | undefined;
  /** The undici dispatcher to send with (an Agent, Pool or proxy agent); the caller owns and closes it. */
  dispatcher: Dispatcher;
  userAgent: string;
  /** Gives up on a request after this long, headers and body included. Default 30 000. */
  timeoutMs?: number;
  /** Where the token came from (default `config`): carried on an AuthRejectedError for the caller. */
  tokenSource?: 'environment' | 'config' | undefined;
  /** How reads and deletes are sent again after a transient failure (addPlant takes its own). Default: not. */
  retry?: RetryPolicy;
  /** How the caller chose this store (the CLI: its flags, for its hints), carried on errors; never read here. */
  storeArgs?: readonly string[];
}

/** A failure to get an answer, with whether sending again is allowed. Internal to the client. */
export class SendError extends Error {
  constructor(
    readonly reported: UnreachableError,
    readonly retryable: Retryable,
    /** The request went out and may have been applied. */
    readonly sent: boolean,
    readonly sends: number,
  ) {
    super(reported.message);
  }
}

/** The client's one way out: a whole answer within the time-out, whatever its status, or a SendError. */
export class Transport {
  /** `{baseUrl}/plants`: the URL of every add, whose origin and path are worked out once. */
  readonly plantsUrl: URL;
  readonly #options: PlantClientOptions;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly #plantsOrigin: string;
  readonly #plantsPath: string;
  /** The requests waiting for an answer, for the one timer that ends those past their deadline. */
  readonly #pending = new Set<AnswerCollector>();
  #sweep: NodeJS.Timeout | undefined;
  /** Whether the base URL's port speaks TLS, asked once (see tlsPortInstead). */
  #tlsProbe: Promise<boolean> | undefined;

  constructor(options: PlantClientOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': options.userAgent,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    };
    this.plantsUrl = new URL(`${formatBaseUrl(options.baseUrl)}/plants`);
    this.#plantsOrigin = this.plantsUrl.origin;
    this.#plantsPath = `${this.plantsUrl.pathname}${this.plantsUrl.search}`;
  }

  /**
   * A `pipelined` request (POST /plants only) is marked idempotent, which undici requires to
   * pipeline it, since after a dropped connection it writes such requests again. Safe for a
   * NewPlant: it carries its own id, which the store refuses twice (409); and a replay is seen
   * (`sends` > 1), so a 409 after it is settled by reading the plant back (ConfirmingAdder).
   */
  send(method: string, url: URL, body: string | undefined, pipelined: boolean): Promise<Answer> {
    // undici's time-outs rather than an AbortSignal per request (with thousands in flight, those cost
    // more than the request); #watch's one timer ends the requests past their deadline (AnswerCollector).
    const timeoutMs = this.#timeoutMs;
    const handler = new AnswerCollector(MAX_RESPONSE_BYTES, timeoutMs);
    this.#watch(handler);
    const plants = url === this.plantsUrl;
    try {
      this.#options.dispatcher.dispatch(
        {
          // (The URL's parts are strings built anew on every read: those of POST /plants are kept.)
          origin: plants ? this.#plantsOrigin : url.origin,
          path: plants ? this.#plantsPath : `${url.pathname}${url.search}`,
          method: method as Dispatcher.HttpMethod,
          headers: this.#headers,
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          idempotent: pipelined ? true : undefined,
          blocking: pipelined ? false : undefined,
        },
        handler,
      );
    } catch (error) {
      handler.abort(error as Error);
    }
    return handler.answer.then(
      (answer) => {
        this.#pending.delete(handler);
        return answer;
      },
      (error: unknown) => {
        throw this.#sendError(error, handler);
      },
    );
  }

  /** An http:// request closed unanswered may have met a TLS port, which never reads plain HTTP. Asked once. */
  async tlsPortInstead(reported: UnreachableError): Promise<UnreachableError | undefined> {
    const { baseUrl } = this.#options;
    if (baseUrl.protocol !== 'http:' || !isClosedConnection(reported.cause)) return undefined;
    if (this.#tlsProbe === undefined) {
      const { speaksTls } = await import('./tls-probe.js');
      this.#tlsProbe = speaksTls(baseUrl.hostname, Number(baseUrl.port || 80));
    }
    if (!(await this.#tlsProbe)) return undefined;
    return this.#unreachable({ kind: 'tls-port' }, reported.cause);
  }

  #sendError(error: unknown, collector: AnswerCollector): SendError {
    this.#pending.delete(collector);
    const answered = collector.answered;
    const code = errorCode(error);
    const timedOut = collector.deadlinePassed || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    // Written at least once: a request undici was to write again after its pipelined connection
    // dropped may then fail to connect (refused), yet its first write may have been applied.
    const written = collector.sends > 0;
    // An answer cut short, or none in time, is a drop (it may have been applied); a request still in
    // undici's queue when its time ran out was never written.
    const failure =
      answered || (timedOut && written) ? 'maybe-applied' : timedOut ? 'not-applied' : retryableFailure(error);
    const retryable = failure === 'not-applied' && written ? 'maybe-applied' : failure;
    const sent = answered || written || retryable === 'maybe-applied';
    const kind = timedOut ? { kind: 'timeout' as const, timeoutMs: this.#timeoutMs } : classifyNetworkFailure(error);
    return new SendError(this.#unreachable(kind, error), retryable, sent, collector.sends);
  }

  #unreachable(failure: UnreachableError['failure'], cause: unknown): UnreachableError {
    const { baseUrl, storeArgs } = this.#options;
    return new UnreachableError(unreachableMessage(failure, baseUrl), { baseUrl, failure, cause, storeArgs });
  }

  #watch(collector: AnswerCollector): void {
    this.#pending.add(collector);
    if (this.#sweep !== undefined) return;
    const every = Math.min(250, this.#timeoutMs);
    this.#sweep = setInterval(() => {
      const now = monotonicMs();
      for (const pending of this.#pending) {
        if (pending.deadline > now) continue;
        this.#pending.delete(pending);
        pending.deadlinePassed = true;
        pending.abort(new Error('the whole answer did not arrive in time'));
      }
      if (this.#pending.size === 0) {
        clearInterval(this.#sweep);
        this.#sweep = undefined;
      }
    }, every);
    // The requests' sockets keep the process alive while they wait; the timer alone must not.
    this.#sweep.unref();
  }
}

/** Monotonic ms, not `performance.now()`: that global loads node:perf_hooks' ten modules on first use. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Collects one answer from undici's dispatch handler API: lighter than `dispatcher.request()`, whose
 * Readable and promise chain were most of the client's cost per record of a bulk add (bench/rows/bulk.ts).
 *
 * `deadline`: `timeoutMs` after the hand-over while unwritten. Once written, undici's headers time-out
 * bounds the wait (counted from the head of the connection, so requests pipelined behind a silent answer
 * pay no time-out of their own) and the deadline is a backstop (twice `timeoutMs`: 1xx for ever); once
 * the answer starts, all of it within `timeoutMs` of the last write (a body that drips).
 *
 * `answer` settles exactly once and undici is never left holding the request: one given up before it
 * was written is aborted when undici starts it, and an answer is never paused (a paused answer nobody
 * resumes holds its connection, and all pipelined behind it, for good).
 */
export class AnswerCollector implements Dispatcher.DispatchHandler {
  sends = 0;
  /** Headers arrived (a final status): from here on the request was answered. */
  answered = false;
  deadlinePassed = false;
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
  #resolve!: (answer: Answer) => void;
  #reject!: (error: unknown) => void;
  readonly answer = new Promise<Answer>((resolve, reject) => {
    this.#resolve = resolve;
    this.#reject = reject;
  });

  constructor(limit: number, timeoutMs: number) {
    this.#limit = limit;
    this.#timeoutMs = timeoutMs;
    this.deadline = monotonicMs() + timeoutMs;
  }

  /** Gives up: `answer` rejects now; undici drops the request now if it started it, else when it does. */
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
    const text = body?.toString('utf8') ?? '';
    this.#resolve({
      status: this.#status,
      contentType: this.#contentType,
      text: truncated ? `${text}…` : text,
      retryAfter: this.#retryAfter,
      link: this.#link,
      sends: this.sends,
    });
  }
}
