import type { Dispatcher } from 'undici';
import { AnswerCollector, type CollectedAnswer, monotonicMs } from './answer-collector.js';
import {
  classifyNetworkFailure,
  errorCode,
  isClosedConnection,
  UnreachableError,
  unreachableMessage,
} from './errors.js';
import { type Retryable, retryableFailure } from './retry-policy.js';

/** The most of a response body we read; a Plant or an Error is a few hundred bytes. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** One answer, whatever its status: the few headers the client reads, and the body as text (`…` ends a cut one). */
export type Answer = Omit<CollectedAnswer, 'body' | 'truncated'> & { text: string };

export interface TransportOptions {
  /** The store's base URL: what an UnreachableError names. */
  baseUrl: URL;
  /** `{baseUrl}/plants`: the URL of every add, whose origin and path are worked out once. */
  plantsUrl: URL;
  /** The undici dispatcher to send with; the caller owns and closes it. */
  dispatcher: Dispatcher;
  /** Sent with every request. */
  headers: Record<string, string>;
  /** Gives up on a request after this long, headers and body included. */
  timeoutMs: number;
  /** Carried on every UnreachableError (PlantClientOptions.storeArgs). */
  storeArgs: readonly string[] | undefined;
}

/** A failure to get an answer, with whether sending again is allowed. Internal to the client. */
export class SendError extends Error {
  constructor(
    readonly reported: UnreachableError,
    readonly retryable: Retryable,
    /** The request went out and may have been applied. */
    readonly sent: boolean,
    /** How many times undici wrote it (above 1 after a dropped pipeline). */
    readonly sends: number,
  ) {
    super(reported.message);
  }
}

/**
 * Sends one request at a time over undici and collects its whole answer, within the time-out:
 * the client's one way out. An answer resolves whatever its status; no answer rejects with a
 * SendError saying whether the request may be sent again.
 */
export class Transport {
  readonly #options: TransportOptions;
  readonly #plantsOrigin: string;
  readonly #plantsPath: string;
  /** The requests waiting for an answer, for the one timer that ends those past their deadline. */
  readonly #pending = new Set<AnswerCollector>();
  #sweep: NodeJS.Timeout | undefined;
  /** Whether the base URL's port speaks TLS, asked once (see tlsPortInstead). */
  #tlsProbe: Promise<boolean> | undefined;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#plantsOrigin = options.plantsUrl.origin;
    this.#plantsPath = `${options.plantsUrl.pathname}${options.plantsUrl.search}`;
  }

  /**
   * One request, its answer collected straight from undici's callbacks (AnswerCollector). A
   * `pipelined` request (POST /plants only) may go out on a connection while earlier ones await
   * their answers. undici pipelines only requests it may send twice, since after a dropped
   * connection it writes again those that were behind the first: a POST is not one in general,
   * but a POST of a NewPlant is safe to repeat. It carries its own id, and the store refuses a
   * second add of an id with 409, so a repeat never adds twice; and a repeat is seen (undici
   * writes it again: `sends` > 1), so a 409 it meets is reported as after a retry (possibly our
   * own earlier write), which a bulk add settles by reading the plant back (ConfirmingAdder).
   */
  send(method: string, url: URL, body: string | undefined, pipelined: boolean): Promise<Answer> {
    // undici's own time-outs for the headers and between body chunks, rather than an AbortSignal
    // per request: with thousands in flight those cost more than the request itself. A request
    // undici has not written yet, and a whole answer once it has started, must also come within
    // the time-out (AnswerCollector's deadline): one timer for all requests ends those past it.
    const timeoutMs = this.#options.timeoutMs;
    const handler = new AnswerCollector(MAX_RESPONSE_BYTES, timeoutMs);
    this.#watch(handler);
    const plants = url === this.#options.plantsUrl;
    try {
      this.#options.dispatcher.dispatch(
        {
          // (The URL's parts are strings built anew on every read: those of POST /plants are kept.)
          origin: plants ? this.#plantsOrigin : url.origin,
          path: plants ? this.#plantsPath : `${url.pathname}${url.search}`,
          method: method as Dispatcher.HttpMethod,
          headers: this.#options.headers,
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          // Marks a request undici may pipeline (undefined: undici's defaults); see above for why an add may be.
          idempotent: pipelined ? true : undefined,
          blocking: pipelined ? false : undefined,
        },
        handler,
      );
    } catch (error) {
      handler.abort(error as Error);
    }
    return handler.answer.then(
      (answer): Answer => {
        this.#pending.delete(handler);
        const text = answer.body.toString('utf8');
        return {
          status: answer.status,
          contentType: answer.contentType,
          text: answer.truncated ? `${text}…` : text,
          retryAfter: answer.retryAfter,
          link: answer.link,
          sends: answer.sends,
        };
      },
      (error: unknown) => {
        throw this.#sendError(error, handler);
      },
    );
  }

  /**
   * An http:// request closed with no answer may have met a TLS port: a TLS server closes a
   * connection that does not start a handshake. Asked once per transport; when the port does
   * speak TLS, the error says so, and the request was not applied (a TLS server never reads
   * plain HTTP).
   */
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
    // An answer cut short, or none in time, is a drop: what a drop allows, it allows (the request
    // reached the store and may have been applied). A request still waiting in undici's queue
    // when its time ran out was never written.
    const failure =
      answered || (timedOut && written) ? 'maybe-applied' : timedOut ? 'not-applied' : retryableFailure(error);
    const retryable = failure === 'not-applied' && written ? 'maybe-applied' : failure;
    // Sent and then no whole answer: cut mid-answer, timed out waiting, or dropped before any answer.
    const sent = answered || written || retryable === 'maybe-applied';
    const kind = timedOut
      ? { kind: 'timeout' as const, timeoutMs: this.#options.timeoutMs }
      : classifyNetworkFailure(error);
    return new SendError(this.#unreachable(kind, error), retryable, sent, collector.sends);
  }

  #unreachable(failure: UnreachableError['failure'], cause: unknown): UnreachableError {
    const { baseUrl, storeArgs } = this.#options;
    return new UnreachableError(unreachableMessage(failure, baseUrl), { baseUrl, failure, cause, storeArgs });
  }

  /** Ends each request whose whole answer has not arrived within the time-out. */
  #watch(collector: AnswerCollector): void {
    this.#pending.add(collector);
    if (this.#sweep !== undefined) return;
    const every = Math.min(250, this.#options.timeoutMs);
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
