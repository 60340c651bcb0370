import type { Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import { parseJsonExact } from '../schema/exact-json.js';
import { ErrorBody, type NewPlant, newPlantJson, Plant, StoredPlant } from '../schema/plant.js';
import { AnswerCollector, type CollectedAnswer } from './answer-collector.js';
import { formatBaseUrl } from './base-url.js';
import { AuthRejectedError, ResponseError, UnreachableError } from './errors.js';
import { busyHint, describeNetworkFailure, doubledPathHint, refusedTokenHint } from './failure-hints.js';
import { nextLink } from './link-header.js';
import { errorCode, isClosedConnection } from './network-errors.js';
import { backoff, parseRetryAfter, type Retryable, type RetryPolicy, retryableFailure, sleep } from './retry-policy.js';

/** The most of a response body we read; a Plant or an Error is a few hundred bytes. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface PlantClientOptions {
  /** Where the store is: `{baseUrl}/plants`. */
  baseUrl: URL;
  /**
   * Sent as `Authorization: Bearer <token>`; never logged. Without one the request goes
   * out unauthenticated and the server's 401 is reported as such (exit 4).
   */
  token: string | undefined;
  /** The undici dispatcher to send with (an Agent, Pool or proxy agent); the caller owns and closes it. */
  dispatcher: Dispatcher;
  /** `User-Agent` header, e.g. `plants/0.1.0 node/v20.19.0`. */
  userAgent: string;
  /** Gives up on a request after this long, headers and body included. Default 30 000. */
  timeoutMs?: number;
  /** Where the token came from, so that a refused one gets the hint that can help. */
  tokenSource?: 'environment' | 'config' | undefined;
  /** How reads and deletes are sent again after a transient failure (addPlant takes its own). Default: not. */
  retry?: RetryPolicy;
  /**
   * The flags that chose this store, as given (`--base-url URL`, `--ca-cert FILE`, `--insecure`):
   * a command a hint suggests repeats them, so that it reaches the same store. Default: none.
   */
  storeArgs?: readonly string[];
}

/** A plant the server accepted: the parsed Plant and the exact text it was sent as. */
export interface AddedPlant {
  status: number;
  plant: Plant;
  rawBody: string;
  /** How many times the request was sent (more than 1 after a transient failure). */
  attempts: number;
}

/** Speaks the plant store interface over undici. Knows nothing of config, flags or terminals. */
export class PlantClient {
  readonly #options: PlantClientOptions & { timeoutMs: number };
  readonly #plantsUrl: URL;
  readonly #plantsOrigin: string;
  readonly #plantsPath: string;
  readonly #headers: Record<string, string>;
  /** The requests waiting for an answer, oldest first, for the one timer that ends those past the time-out. */
  readonly #pending = new Set<AnswerCollector>();
  /** Whether the base URL's port speaks TLS, asked once (see #tlsPortInstead). */
  #tlsProbe: Promise<boolean> | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #lastContentType = '';
  #lastIsJson = false;

  constructor(options: PlantClientOptions) {
    this.#options = { timeoutMs: 30_000, ...options };
    this.#plantsUrl = new URL(`${formatBaseUrl(options.baseUrl)}/plants`);
    this.#plantsOrigin = this.#plantsUrl.origin;
    this.#plantsPath = `${this.#plantsUrl.pathname}${this.#plantsUrl.search}`;
    this.#headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': options.userAgent,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    };
  }

  /**
   * POST /plants. Resolves with the Plant; rejects with ResponseError, AuthRejectedError or
   * UnreachableError, whose `attempts` says how often it was sent.
   */
  addPlant(newPlant: NewPlant, options: { retry?: RetryPolicy } = {}): Promise<AddedPlant> {
    const body = newPlantJson(newPlant);
    // The first attempt is sent here, and an answer that settles it at once (a 200 carrying the
    // plant sent, written once) returns without going through the retry loop: that is every
    // record of a bulk add that goes well. Anything else continues in #exchange as its attempt 1.
    return this.#send('POST', this.#plantsUrl, body, true).then(
      (answer) =>
        answer.sends === 1 && (answer.status === 200 || answer.status === 201) && this.#isPlantSent(answer, body)
          ? { status: answer.status, plant: newPlant, rawBody: answer.text, attempts: 1 }
          : this.#exchange('POST', this.#plantsUrl, body, options.retry, true, { answer }).then((exchange) =>
              this.#added(newPlant, body, exchange),
            ),
      (error: unknown) =>
        this.#exchange('POST', this.#plantsUrl, body, options.retry, true, { error }).then((exchange) =>
          this.#added(newPlant, body, exchange),
        ),
    );
  }

  /**
   * Whether an answer is, byte for byte, the plant sent (as plants serve answers): that is the
   * plant, since a NewPlant is a Plant and parsing its own text back gives it again. Any other
   * answer is read as any answer is.
   */
  #isPlantSent(answer: Answer, body: string): boolean {
    return answer.text === body && this.#isJson(answer.contentType);
  }

  /** The Plant of an add's exchange, or the error its answer means. */
  #added(newPlant: NewPlant, body: string, exchange: Exchange): AddedPlant {
    const { answer, attempts } = exchange;
    if (answer.status === 200 || answer.status === 201) {
      if (this.#isPlantSent(answer, body)) {
        return { status: answer.status, plant: newPlant, rawBody: answer.text, attempts };
      }
      return { ...withAttempts(() => this.#plant(answer), attempts), attempts };
    }
    const error = this.#errorFor(answer);
    throw withAttemptsOn(
      answer.status === 409 && exchange.mayHaveBeenApplied ? duplicateAfterRetry(error) : error,
      attempts,
    );
  }

  /** isJsonType, remembering the last content type seen (a store answers with one). */
  #isJson(contentType: string): boolean {
    if (contentType !== this.#lastContentType) {
      this.#lastContentType = contentType;
      this.#lastIsJson = isJsonType(contentType);
    }
    return this.#lastIsJson;
  }

  /**
   * One page of GET /plants (a `plants serve` extension): plants in id order, and the URL of
   * the next page from the `Link: <…>; rel="next"` header, if there is more.
   */
  async listPage(page: { limit?: number; after?: bigint } | URL): Promise<PlantPage> {
    const url = page instanceof URL ? page : new URL(this.#plantsUrl);
    if (!(page instanceof URL)) {
      if (page.limit !== undefined) url.searchParams.set('limit', String(page.limit));
      if (page.after !== undefined) url.searchParams.set('after', String(page.after));
    }
    return this.#page(await this.#read('GET', url), url);
  }

  /**
   * POST /reset (`plants serve --allow-reset`): the store back to exactly its seed, or empty.
   * Resolves with the first page of what it holds then, as GET /plants gives it.
   */
  async reset(): Promise<PlantPage> {
    const url = new URL(`${formatBaseUrl(this.#options.baseUrl)}/reset`);
    return this.#page(await this.#read('POST', url), url);
  }

  /** A page of plants from a 200, or ResponseError when it is not one. */
  #page(answer: Answer, url: URL): PlantPage {
    const json = tryParseJson(answer.text, answer.contentType);
    const plants = json.ok && Array.isArray(json.value) ? StoredPlant.array().safeParse(json.value) : undefined;
    if (plants?.success !== true) {
      const what = describeBody(answer.text, answer.contentType, 'a list of plants');
      throw new ResponseError(`the server answered 200 but ${what}`, {
        status: 200,
        body: { error: 200, message: `response is not a list of plants: ${what}` },
      });
    }
    const next = nextLink(answer.link, url);
    if (next !== undefined && next.origin !== this.#plantsUrl.origin) {
      // Following it would send the token to another origin.
      throw new ResponseError(`the server's next page is on another origin (${next.origin}); not following it`, {
        status: 200,
        body: { error: 200, message: 'next page on another origin' },
      });
    }
    return { plants: plants.data, next };
  }

  /**
   * Whether the store answers and takes the token, for `plants status`: one plant's page
   * (GET /plants?limit=1). A store that does not list plants (405) is reachable, but the token
   * could not be checked that way.
   */
  async checkAccess(): Promise<'accepted' | 'not-checked'> {
    try {
      await this.listPage({ limit: 1 });
      return 'accepted';
    } catch (error) {
      // A store with the interface's one operation (POST /plants) alone answers 404 or 405 here.
      if (error instanceof ResponseError && (error.status === 404 || error.status === 405)) return 'not-checked';
      throw error;
    }
  }

  /** Every plant, page after page, in flat memory: one page is held at a time. */
  async *listAll(limit?: number): AsyncGenerator<StoredPlant> {
    let page: PlantPage = await this.listPage({ limit });
    for (;;) {
      yield* page.plants;
      if (page.next === undefined) return;
      page = await this.listPage(page.next);
    }
  }

  /**
   * GET /plants/{id}: the plant, or ResponseError (404 when there is none). `retry` replaces
   * the client's policy (a bulk add reads back under its own).
   */
  async getPlant(id: bigint, options: { retry?: RetryPolicy } = {}): Promise<{ plant: StoredPlant; rawBody: string }> {
    const answer = await this.#read('GET', this.#plantUrl(id), options.retry);
    const json = tryParseJson(answer.text, answer.contentType);
    const plant = json.ok ? StoredPlant.safeParse(json.value) : undefined;
    if (plant?.success) return { plant: plant.data, rawBody: answer.text };
    const what = describeBody(answer.text, answer.contentType, 'a Plant');
    throw new ResponseError(`the server answered 200 but ${what}`, {
      status: 200,
      body: { error: 200, message: `response is not a Plant: ${what}` },
    });
  }

  /** DELETE /plants/{id}: resolves once deleted; ResponseError (404 when there is none). */
  async deletePlant(id: bigint): Promise<void> {
    await this.#read('DELETE', this.#plantUrl(id));
  }

  /**
   * The one way every request goes out: sent, and sent again under the retry policy where that
   * is safe (see RetryPolicy). Resolves with the answer, whatever its status; rejects only with
   * UnreachableError, whose `attempts` says how often it was sent.
   */
  async #exchange(
    method: string,
    url: URL,
    body?: string,
    policy: RetryPolicy = { attempts: 1 },
    pipelined = false,
    /** Attempt 1, already sent by the caller: its answer, or what it was rejected with. */
    first?: { answer: Answer } | { error: unknown },
  ): Promise<Exchange> {
    let mayHaveBeenApplied = false;
    /** Writes of the request that undici made on its own (a dropped pipeline), beyond the attempts. */
    let replays = 0;
    for (let attempt = 1; ; attempt++) {
      let waitMs: number | undefined;
      try {
        let answer: Answer;
        if (attempt === 1 && first !== undefined) {
          if ('error' in first) throw first.error;
          answer = first.answer;
        } else {
          // A retry goes alone on its connection, as without pipelining: after a failure, no
          // other request's drop may cut it (nor make its attempts more than it was sent for).
          answer = await this.#send(method, url, body, pipelined && attempt === 1);
        }
        if (answer.sends > 1) {
          replays += answer.sends - 1;
          mayHaveBeenApplied = true;
        }
        const retryAfterMs =
          answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.retryAfter) : undefined;
        if (retryAfterMs === undefined || attempt >= policy.attempts || retryAfterMs > (policy.maxDelayMs ?? 10_000)) {
          return { answer, attempts: attempt + replays, mayHaveBeenApplied };
        }
        waitMs = retryAfterMs;
      } catch (error) {
        if (!(error instanceof SendError)) throw error;
        if (error.sends > 1) replays += error.sends - 1;
        if (error.sent || error.sends > 1) mayHaveBeenApplied = true;
        // A DELETE sent again after it may have been applied would answer 404 for its own success.
        const again = error.retryable === 'not-applied' || (error.retryable === 'maybe-applied' && method !== 'DELETE');
        if (attempt >= policy.attempts || !again) {
          const tls = await this.#tlsPortInstead(error.reported);
          if (tls !== undefined) throw withAttemptsOn(tls, attempt + replays);
          error.reported.sentNoAnswer = mayHaveBeenApplied;
          throw withAttemptsOn(error.reported, attempt + replays);
        }
      }
      await sleep(waitMs ?? backoff(attempt, policy));
    }
  }

  /**
   * A GET, DELETE or (body-less, idempotent) POST under the client's retry policy (or `retry`):
   * the answer when it is a success, else its error.
   */
  async #read(method: 'GET' | 'DELETE' | 'POST', url: URL, retry = this.#options.retry): Promise<Answer> {
    const { answer, attempts } = await this.#exchange(method, url, undefined, retry);
    if (answer.status === 200 || (method === 'DELETE' && answer.status === 204)) return answer;
    throw withAttemptsOn(this.#errorFor(answer), attempts);
  }

  #plantUrl(id: bigint): URL {
    return new URL(`${this.#plantsUrl.pathname}/${id}`, this.#plantsUrl);
  }

  #plant(answer: Answer): Omit<AddedPlant, 'attempts'> {
    const { status, contentType, text } = answer;
    const json = tryParseJson(text, contentType);
    const plant = json.ok ? Plant.safeParse(json.value) : undefined;
    if (plant?.success) return { status, plant: plant.data, rawBody: text };
    throw new ResponseError(`the server answered ${status} but ${describeBody(text, contentType, 'a Plant')}`, {
      status,
      body: { error: status, message: `response is not a Plant: ${describeBody(text, contentType, 'a Plant')}` },
    });
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
  #send(method: string, url: URL, body: string | undefined, pipelined: boolean): Promise<Answer> {
    // undici's own time-outs for the headers and between body chunks, rather than an AbortSignal
    // per request: with thousands in flight those cost more than the request itself. The whole
    // answer must also arrive within --timeout: one timer for all requests ends those past it.
    const timeoutMs = this.#options.timeoutMs;
    let collector: AnswerCollector | undefined;
    const collected = new Promise<CollectedAnswer>((resolve, reject) => {
      collector = new AnswerCollector(MAX_RESPONSE_BYTES, performance.now() + timeoutMs, resolve, reject);
    });
    const handler = collector as AnswerCollector;
    this.#watch(handler);
    try {
      this.#options.dispatcher.dispatch(
        {
          // (The URL's parts are strings built anew on every read: those of POST /plants are kept.)
          origin: url === this.#plantsUrl ? this.#plantsOrigin : url.origin,
          path: url === this.#plantsUrl ? this.#plantsPath : `${url.pathname}${url.search}`,
          method: method as Dispatcher.HttpMethod,
          headers: this.#headers,
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
      handler.onError(error as Error);
    }
    return collected.then(
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

  #sendError(error: unknown, collector: AnswerCollector): SendError {
    this.#pending.delete(collector);
    const answered = collector.answered;
    const code = errorCode(error);
    const timedOut = collector.deadlinePassed || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    // Written at least once: a request undici was to write again after its pipelined connection
    // dropped may then fail to connect (refused), yet its first write may have been applied.
    const written = collector.sends > 0;
    // No answer in time is a drop that has not happened yet: what a drop allows, it allows.
    const failure = answered ? false : timedOut ? 'maybe-applied' : retryableFailure(error);
    const retryable = failure === 'not-applied' && written ? 'maybe-applied' : failure;
    // Sent and then no whole answer: cut mid-answer, timed out waiting, or dropped before any answer.
    const sent = timedOut || answered || written || retryable === 'maybe-applied';
    return new SendError(this.#unreachable(error, timedOut), retryable, sent, collector.sends);
  }

  /** Ends each request whose whole answer has not arrived within the time-out. */
  #watch(collector: AnswerCollector): void {
    this.#pending.add(collector);
    if (this.#sweep !== undefined) return;
    const every = Math.min(250, this.#options.timeoutMs);
    this.#sweep = setInterval(() => {
      const now = performance.now();
      // Oldest first: the first one still within its time is the end of those past theirs.
      for (const pending of this.#pending) {
        if (pending.deadline > now) break;
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

  /**
   * An http:// request closed with no answer may have met a TLS port: a TLS server closes a
   * connection that does not start a handshake. Asked once per client; when the port does speak
   * TLS, the error says so and names the https:// URL, and the request was not applied (a TLS
   * server never reads plain HTTP).
   */
  async #tlsPortInstead(reported: UnreachableError): Promise<UnreachableError | undefined> {
    const baseUrl = this.#options.baseUrl;
    if (baseUrl.protocol !== 'http:' || !isClosedConnection(reported.cause)) return undefined;
    if (this.#tlsProbe === undefined) {
      const { speaksTls } = await import('./tls-probe.js');
      this.#tlsProbe = speaksTls(baseUrl.hostname, Number(baseUrl.port || 80));
    }
    if (!(await this.#tlsProbe)) return undefined;
    const base = formatBaseUrl(baseUrl);
    const secure = new URL(base);
    secure.protocol = 'https:';
    return new UnreachableError(`cannot reach ${base}: the server speaks TLS (HTTPS) on this port, not plain HTTP`, {
      url: base,
      cause: reported.cause,
      hints: [`Use ${formatBaseUrl(secure)}`],
      storeArgs: this.#options.storeArgs,
    });
  }

  #unreachable(error: unknown, timedOut: boolean): UnreachableError {
    const baseUrl = this.#options.baseUrl;
    const base = formatBaseUrl(baseUrl);
    if (timedOut) {
      return new UnreachableError(`no answer from ${base} within ${this.#options.timeoutMs / 1000} s`, {
        url: base,
        cause: error,
        hints: ['Raise the limit with --timeout SECONDS.'],
        storeArgs: this.#options.storeArgs,
      });
    }
    const { reason, hints } = describeNetworkFailure(error, baseUrl);
    return new UnreachableError(`cannot reach ${base}: ${reason}`, {
      url: base,
      cause: error,
      hints,
      storeArgs: this.#options.storeArgs,
    });
  }

  #errorFor(answer: Answer): ResponseError {
    const { status, contentType, text } = answer;
    const json = tryParseJson(text, contentType);
    const errorBody = json.ok ? ErrorBody.safeParse(json.value) : undefined;
    const problem = json.ok ? problemMessage(json.value) : undefined;
    const serverMessage = errorBody?.success ? errorBody.data.message : problem;
    const message =
      serverMessage !== undefined
        ? `the server answered ${status}: ${serverMessage}`
        : `the server answered ${status} with ${describeBody(text, contentType, 'an Error')}`;
    const body: ErrorBody = errorBody?.success ? errorBody.data : { error: status, message: serverMessage ?? message };
    // Any JSON body is passed on as it came (an Error, or a problem+json); other bodies are not.
    const rawBody = json.ok ? text : undefined;
    if (status === 401 || status === 403) {
      const hint = refusedTokenHint(
        this.#options.baseUrl,
        this.#options.token === undefined ? undefined : (this.#options.tokenSource ?? 'config'),
        status,
      );
      return new AuthRejectedError(message, { status, body, rawBody, exitCode: ExitCode.auth, hints: [hint] });
    }
    return new ResponseError(message, {
      status,
      body,
      rawBody,
      hints: [...busyHint(status, answer.retryAfter), ...doubledPathHint(status, this.#options.baseUrl)],
    });
  }
}

type JsonResult = { ok: true; value: unknown } | { ok: false };

function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

function tryParseJson(text: string, contentType: string): JsonResult {
  if (!isJsonType(contentType) || text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: parseJsonExact(text) };
  } catch {
    return { ok: false };
  }
}

/** The words of an RFC 9457 problem document (`title`, `detail`), as some servers send for 401. */
function problemMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { title, detail } = value as { title?: unknown; detail?: unknown };
  const parts = [title, detail].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return parts.length > 0 ? parts.join(': ') : undefined;
}

/** What came back instead of the expected record, in a few words and never more than a line. */
function describeBody(text: string, contentType: string, expected: string): string {
  const type = contentType.split(';')[0]?.trim() || 'no content type';
  if (text.length === 0) return `an empty body instead of ${expected}`;
  if (isJsonType(contentType)) {
    const json = tryParseJson(text, contentType);
    if (!json.ok) return `a body that is not valid JSON (possibly truncated) instead of ${expected}`;
    return `JSON that is not ${expected}: ${excerpt(text)}`;
  }
  return `a ${type} body instead of ${expected}: ${excerpt(text)}`;
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

interface Exchange {
  answer: Answer;
  attempts: number;
  /** A POST was sent again after a connection dropped with no answer: the first may have been applied. */
  mayHaveBeenApplied: boolean;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  retryAfter: string | undefined;
  link: string | undefined;
  /** How many times undici wrote the request (above 1: it sent it again after a dropped pipeline). */
  sends: number;
}

/** A page of plants, and where the next one is. */
export interface PlantPage {
  plants: StoredPlant[];
  next: URL | undefined;
}

/** A failure to get an answer, with whether sending again is allowed. Internal to the client. */
class SendError extends Error {
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

function withAttemptsOn<T extends ResponseError | UnreachableError>(error: T, attempts: number): T {
  error.attempts = attempts;
  return error;
}

/** Runs `make`, marking a ResponseError it throws with how often the request was sent. */
function withAttempts<T>(make: () => T, attempts: number): T {
  try {
    return make();
  } catch (error) {
    throw error instanceof ResponseError ? withAttemptsOn(error, attempts) : error;
  }
}

/** A 409 for a POST sent again after the connection dropped: most likely our own first attempt. */
function duplicateAfterRetry(error: ResponseError): ResponseError {
  const again = new ResponseError(
    `${error.message} (after a retry: the first attempt may have added it before the connection dropped)`,
    { status: error.status, body: error.body, rawBody: error.rawBody, exitCode: error.exitCode, hints: error.hints },
  );
  again.afterRetry = true;
  return again;
}
