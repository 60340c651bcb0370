import type { Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import { parseJsonExact, stringifyJsonExact } from '../schema/exact-json.js';
import { ErrorBody, type NewPlant, Plant, StoredPlant } from '../schema/plant.js';
import { DEFAULT_BASE_URL, formatBaseUrl } from './base-url.js';
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
 * because the store refuses a duplicate id with 409 (the connection dropped before any answer):
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
  readonly #headers: Record<string, string>;

  constructor(options: PlantClientOptions) {
    this.#options = { timeoutMs: 30_000, ...options };
    this.#plantsUrl = new URL(`${formatBaseUrl(options.baseUrl)}/plants`);
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
  async addPlant(newPlant: NewPlant, options: { retry?: RetryPolicy } = {}): Promise<AddedPlant> {
    const body = stringifyJsonExact(newPlant);
    const policy = options.retry ?? { attempts: 1 };
    let mayHaveBeenApplied = false;
    for (let attempt = 1; ; attempt++) {
      let retryable: Retryable = false;
      let retryAfterMs: number | undefined;
      try {
        const answer = await this.#send('POST', this.#plantsUrl, body);
        if (answer.status === 200 || answer.status === 201) return { ...this.#plant(answer), attempts: attempt };
        const error = this.#errorFor(answer.status, answer.contentType, answer.text);
        retryAfterMs = answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.retryAfter) : undefined;
        if (retryAfterMs !== undefined) retryable = 'not-applied';
        if (attempt >= policy.attempts || retryable === false || (retryAfterMs ?? 0) > (policy.maxDelayMs ?? 10_000)) {
          throw withAttempts(answer.status === 409 && mayHaveBeenApplied ? duplicateAfterRetry(error) : error, attempt);
        }
      } catch (error) {
        if (!(error instanceof SendError)) throw error;
        retryable = error.retryable;
        if (attempt >= policy.attempts || retryable === false) throw withAttempts(error.reported, attempt);
      }
      if (retryable === 'maybe-applied') mayHaveBeenApplied = true;
      await sleep(retryAfterMs ?? backoff(attempt, policy));
    }
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
    const answer = await this.#send('GET', url);
    if (answer.status !== 200) throw this.#errorFor(answer.status, answer.contentType, answer.text);
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

  /** Every plant, page after page, in flat memory: one page is held at a time. */
  async *listAll(limit?: number): AsyncGenerator<StoredPlant> {
    let page: PlantPage = await this.listPage({ limit });
    for (;;) {
      yield* page.plants;
      if (page.next === undefined) return;
      page = await this.listPage(page.next);
    }
  }

  /** GET /plants/{id}: the plant, or ResponseError (404 when there is none). */
  async getPlant(id: bigint): Promise<{ plant: StoredPlant; rawBody: string }> {
    const answer = await this.#send('GET', this.#plantUrl(id));
    if (answer.status !== 200) throw this.#errorFor(answer.status, answer.contentType, answer.text);
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
    const answer = await this.#send('DELETE', this.#plantUrl(id));
    if (answer.status !== 204 && answer.status !== 200)
      throw this.#errorFor(answer.status, answer.contentType, answer.text);
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

  async #send(method: string, url: URL, body?: string): Promise<Answer> {
    // undici's own time-outs, headers and then body, rather than a timer and an AbortSignal per
    // request: with thousands in flight those cost more than the request itself.
    let answered = false;
    try {
      const response = await this.#options.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: this.#headers,
        body,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      answered = true;
      const text = await readLimited(response.body, response.headers['content-length']);
      const contentType = String(response.headers['content-type'] ?? '');
      const { 'retry-after': retryAfter, link } = response.headers;
      return {
        status: response.statusCode,
        contentType,
        text,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        link: typeof link === 'string' ? link : undefined,
      };
    } catch (error) {
      const code = errorCode(error);
      const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
      throw new SendError(this.#unreachable(error, timedOut), timedOut || answered ? false : retryableFailure(error));
    }
  }

  #unreachable(error: unknown, timedOut: boolean): UnreachableError {
    const base = formatBaseUrl(this.#options.baseUrl);
    const isDefault = base === DEFAULT_BASE_URL;
    const hints = isDefault ? ['Is the local store running? Start it with `plants serve`.'] : [];
    if (timedOut) {
      return new UnreachableError(`no answer from ${base} within ${this.#options.timeoutMs / 1000} s`, {
        url: base,
        cause: error,
        hints: ['Raise the limit with --timeout SECONDS.', ...hints],
      });
    }
    return new UnreachableError(`cannot reach ${base}: ${describeNetworkError(error)}`, {
      url: base,
      cause: error,
      hints,
    });
  }

  #errorFor(status: number, contentType: string, text: string): ResponseError {
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
      const origin = this.#options.baseUrl.origin;
      const hint =
        this.#options.token === undefined
          ? `No token is stored for ${origin}: run \`plants login --base-url ${origin}\` or set PLANTS_TOKEN.`
          : `Check the token: \`plants login --base-url ${origin}\` stores a new one.`;
      return new AuthRejectedError(message, { status, body, rawBody, exitCode: ExitCode.auth, hints: [hint] });
    }
    return new ResponseError(message, { status, body, rawBody });
  }
}

async function readLimited(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown; text(): Promise<string> },
  contentLength: string | string[] | undefined,
): Promise<string> {
  // A declared length within the limit: undici's own reader, cheaper than iterating the chunks.
  if (typeof contentLength === 'string' && /^\d+$/.test(contentLength) && Number(contentLength) <= MAX_RESPONSE_BYTES) {
    return body.text();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      return `${Buffer.concat(chunks).toString('utf8')}…`;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
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

function describeNetworkError(error: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
      return 'the connection was closed before a whole answer arrived';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'the server stopped answering';
    if (
      typeof code === 'string' &&
      (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
    ) {
      return `TLS failed (${current.message})`;
    }
    if (current.cause === undefined) return current.message;
    current = current.cause;
  }
  return String(error);
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  retryAfter: string | undefined;
  link: string | undefined;
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

function withAttempts<T extends ResponseError | UnreachableError>(error: T, attempts: number): T {
  error.attempts = attempts;
  return error;
}

/** A 409 for a POST sent again after the connection dropped: most likely our own first attempt. */
function duplicateAfterRetry(error: ResponseError): ResponseError {
  return new ResponseError(
    `${error.message} (after a retry: the first attempt may have added it before the connection dropped)`,
    { status: error.status, body: error.body, rawBody: error.rawBody, exitCode: error.exitCode, hints: error.hints },
  );
}
