import type { Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import { parseJsonExact } from '../schema/exact-json.js';
import { ErrorBody, type NewPlant, newPlantJson, Plant, StoredPlant } from '../schema/plant.js';
import { AnswerCollector, type CollectedAnswer } from './answer-collector.js';
import { DEFAULT_BASE_URL, formatBaseUrl, isLoopbackHost } from './base-url.js';
import { AuthRejectedError, ResponseError, UnreachableError } from './errors.js';

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

/**
 * When a failed POST is sent again. Only where it cannot have been applied (the connection
 * was refused; the server answered 429 or 503 with Retry-After), or where a repeat is harmless
 * because the store refuses a duplicate id with 409 (the connection dropped before any answer,
 * or no answer came within the time-out):
 * a 409 after such a retry is reported as possibly the first attempt's doing.
 */
export interface RetryPolicy {
  /** Sends at most this many times in all. Default 1: no retry. */
  attempts: number;
  /** Back-off before the second attempt, doubled each time (with jitter). Default 200. */
  baseDelayMs?: number;
  /** Longest wait, Retry-After included: a longer Retry-After is not waited for. Default 10 000. */
  maxDelayMs?: number;
}

/** Why a request may be sent again, or why not. */
type Retryable = 'not-applied' | 'maybe-applied' | false;

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

/** OpenSSL's verdicts on a certificate, as a sentence. */
const certificateProblems: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed, and not trusted here',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain ends in a self-signed certificate that is not trusted here',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not signed by an authority trusted here',
  UNABLE_TO_GET_ISSUER_CERT: 'its TLS certificate is not signed by an authority trusted here',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate is not signed by an authority trusted here',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  CERT_NOT_YET_VALID: 'its TLS certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
  CERT_REVOKED: 'its TLS certificate has been revoked',
};

/**
 * Why a request got no answer, as a sentence and what to try: never the library's own text,
 * which for TLS is OpenSSL's internals (error codes, source paths).
 */
export function describeNetworkFailure(error: unknown, baseUrl: URL): { reason: string; hints: string[] } {
  const code = errorCode(error) ?? '';
  const text = causeMessages(error);
  if (code === 'ECONNREFUSED') {
    const port = baseUrl.port || (baseUrl.protocol === 'https:' ? 443 : 80);
    const hints = !isLoopbackHost(baseUrl.hostname)
      ? []
      : formatBaseUrl(baseUrl) === DEFAULT_BASE_URL
        ? ['Is the local store running? Start it with `plants serve`.']
        : isIpv6Host(baseUrl.hostname)
          ? // serve listens on 127.0.0.1 unless told otherwise: an IPv6 address never reaches it.
            [
              `plants serve listens on 127.0.0.1 unless --host says otherwise: use ${formatBaseUrl(withHost(baseUrl, '127.0.0.1'))}, or start it with \`plants serve --host ::1 --port ${port}\`.`,
            ]
          : [`Is a store listening there? \`plants serve --port ${port}\` starts one.`];
    return { reason: 'connection refused', hints };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    return {
      reason: `the host name ${baseUrl.hostname} could not be resolved (DNS)`,
      hints: ['Check the host in the base URL (--base-url, PLANTS_BASE_URL, or the default `plants status` shows).'],
    };
  }
  if (isClosedConnection(error)) {
    return { reason: 'the connection was closed before a whole answer arrived', hints: [] };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // The chain was trusted (the name is checked after it): --ca-cert would change nothing.
    return { reason: certificateProblems[code] ?? '', hints: [hostNameHint(error, baseUrl)] };
  }
  const problem = certificateProblems[code];
  if (problem !== undefined) {
    return {
      reason: problem,
      hints: [
        "Trust it with --ca-cert FILE (its certificate, or its authority's, as PEM); `plants login --ca-cert FILE` keeps it for this origin.",
      ],
    };
  }
  if (/wrong version number|packet length too long|http request|unknown protocol/i.test(text)) {
    const plain = new URL(formatBaseUrl(baseUrl));
    plain.protocol = 'http:';
    return {
      reason: 'the server does not speak TLS on this port',
      hints: [`If it is a plain-HTTP store, try ${formatBaseUrl(plain)}`],
    };
  }
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO') {
    return { reason: 'the TLS handshake failed', hints: [] };
  }
  const proxy = /Proxy response \((\d+)\)/.exec(text);
  if (proxy !== null) return { reason: `the proxy answered ${proxy[1]} instead of opening a tunnel to it`, hints: [] };
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return { reason: 'the connection timed out', hints: [] };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { reason: 'no route to the host', hints: [] };
  return { reason: code === '' ? 'the request failed' : `the request failed (${code})`, hints: [] };
}

/** A URL's host as an IPv6 address (`[::1]`, as URL keeps it). */
function isIpv6Host(hostname: string): boolean {
  return hostname.startsWith('[');
}

/** The same URL with another host. */
function withHost(baseUrl: URL, host: string): URL {
  const url = new URL(formatBaseUrl(baseUrl));
  url.hostname = host;
  return url;
}

/**
 * What to do about a certificate made for other names: the names it holds (node's error
 * carries the peer certificate), and the URL with the first of them.
 */
function hostNameHint(error: unknown, baseUrl: URL): string {
  let altNames: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const cert = (current as { cert?: { subjectaltname?: unknown } }).cert;
    if (typeof cert?.subjectaltname === 'string') altNames = cert.subjectaltname;
  }
  const names = (altNames ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry)?.[1]?.trim())
    .filter((name): name is string => name !== undefined && name !== '');
  const host = baseUrl.hostname.replace(/^\[|\]$/g, '');
  if (names.length === 0) {
    return `Its certificate's names do not include ${host}: reach the store by a name its certificate holds, or give it a certificate made for ${host}.`;
  }
  // A wildcard (*.example.com) is no host to connect to; an IPv6 address goes in brackets.
  const usable = names.find((name) => !name.includes('*'));
  const suggestion =
    usable === undefined ? '' : ` (${formatBaseUrl(withHost(baseUrl, usable.includes(':') ? `[${usable}]` : usable))})`;
  return `Its certificate names ${names.join(', ')}, not ${host}: use one of those in the URL${suggestion}, or give the store a certificate made for ${host}.`;
}

/** The connection was closed (or reset) before a whole answer arrived. */
function isClosedConnection(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED';
}

function causeMessages(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    parts.push(current.message);
  }
  return parts.join(' ');
}

/** What to do about a refused token, naming where it came from (PLANTS_TOKEN cannot be mended by a login). */
export function refusedTokenHint(
  baseUrl: URL,
  source: 'environment' | 'config' | undefined,
  status: 401 | 403 = 401,
): string {
  const login = loginCommand(baseUrl);
  if (source === 'environment') {
    return `The token sent was PLANTS_TOKEN's (it comes before any stored token): set it to a valid token, or unset it to use the one \`${login}\` stores.`;
  }
  if (source === undefined) return `No token is stored for ${baseUrl.origin}: run \`${login}\` or set PLANTS_TOKEN.`;
  if (status === 401 && isLoopbackHost(baseUrl.hostname)) {
    // A store on this machine is most often plants serve, restarted with a token of its own.
    return `This store may have started with a new token since the login (plants serve makes one up each start with --memory, else keeps it beside its file, as <file>.token): its banner shows the token, and \`${login} --with-token\` stores it.`;
  }
  return `Check the token: \`${login}\` stores a new one.`;
}

/** `plants login`, with `--base-url` when the store is not the default one. */
export function loginCommand(baseUrl: URL): string {
  const base = formatBaseUrl(baseUrl);
  return base === DEFAULT_BASE_URL ? 'plants login' : `plants login --base-url ${base}`;
}

/**
 * A base URL ending in /plants (`http://127.0.0.1:4010/plants`) sends to /plants/plants: `POST`
 * meets 405, `GET /plants/plants` reads `plants` as an id (400). Say to drop it.
 */
function doubledPathHint(status: number, baseUrl: URL): string[] {
  if (status !== 400 && status !== 404 && status !== 405) return [];
  if (!/\/plants$/i.test(baseUrl.pathname)) return [];
  const base = new URL(formatBaseUrl(baseUrl));
  base.pathname = base.pathname.replace(/\/plants$/i, '');
  return [
    `The base URL ends in /plants, which plants adds itself (this asked for ${baseUrl.pathname}/plants…): drop it, and use ${formatBaseUrl(base)}`,
  ];
}

/** A 429 or 503 that says when to come back: say so (it was already waited for where that was allowed). */
function busyHint(status: number, retryAfter: string | undefined): string[] {
  if (status !== 429 && status !== 503) return [];
  const ms = parseRetryAfter(retryAfter);
  return ms === undefined
    ? ['The store is busy or down for now; try again later.']
    : [`The store is busy; it asks to wait ${Math.ceil(ms / 1000)} s before trying again (Retry-After).`];
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

/** The `rel="next"` target of a Link header (RFC 8288), resolved against the page's URL. */
export function nextLink(header: string | undefined, base: URL): URL | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match === null) continue;
    const rels =
      /;\s*rel\s*=\s*"?([^";]+)"?/i
        .exec(match[2] ?? '')?.[1]
        ?.toLowerCase()
        .split(/\s+/) ?? [];
    if (!rels.includes('next')) continue;
    try {
      return new URL(match[1] ?? '', base);
    } catch {
      return undefined;
    }
  }
  return undefined;
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

/** Connection refused: nothing reached the server. Dropped before any answer: it may have been applied. */
function retryableFailure(error: unknown): Retryable {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'not-applied';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'maybe-applied';
  return false;
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY') return code;
  }
  return undefined;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month (`Sun, 06 Nov 1994 08:49:37 GMT`); bare numbers are not dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoff(attempt: number, policy: RetryPolicy): number {
  const base = (policy.baseDelayMs ?? 200) * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs ?? 10_000, base / 2 + Math.random() * (base / 2));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
