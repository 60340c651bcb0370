import type { Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import { parseJsonExact, stringifyJsonExact } from '../schema/exact-json.js';
import { ErrorBody, type NewPlant, Plant } from '../schema/plant.js';
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
}

/** Speaks the plant store interface over undici. Knows nothing of config, flags or terminals. */
export class PlantClient {
  readonly #options: PlantClientOptions & { timeoutMs: number };
  readonly #plantsUrl: URL;

  constructor(options: PlantClientOptions) {
    this.#options = { timeoutMs: 30_000, ...options };
    this.#plantsUrl = new URL(`${formatBaseUrl(options.baseUrl)}/plants`);
  }

  /** POST /plants. Resolves with the Plant; rejects with ResponseError, AuthRejectedError or UnreachableError. */
  async addPlant(newPlant: NewPlant, options: { signal?: AbortSignal } = {}): Promise<AddedPlant> {
    const { status, contentType, text } = await this.#send(
      'POST',
      this.#plantsUrl,
      stringifyJsonExact(newPlant),
      options.signal,
    );
    if (status === 200 || status === 201) {
      const json = tryParseJson(text, contentType);
      const plant = json.ok ? Plant.safeParse(json.value) : undefined;
      if (plant?.success) return { status, plant: plant.data, rawBody: text };
      throw new ResponseError(`the server answered ${status} but ${describeBody(text, contentType, 'a Plant')}`, {
        status,
        body: { error: status, message: `response is not a Plant: ${describeBody(text, contentType, 'a Plant')}` },
      });
    }
    throw this.#errorFor(status, contentType, text);
  }

  async #send(method: string, url: URL, body: string, signal: AbortSignal | undefined) {
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const combined = signal === undefined ? deadline : AbortSignal.any([deadline, signal]);
    try {
      const response = await this.#options.dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': this.#options.userAgent,
          ...(this.#options.token === undefined ? {} : { authorization: `Bearer ${this.#options.token}` }),
        },
        body,
        signal: combined,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      const text = await readLimited(response.body);
      const contentType = String(response.headers['content-type'] ?? '');
      return { status: response.statusCode, contentType, text };
    } catch (error) {
      throw this.#unreachable(error, deadline.aborted);
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

async function readLimited(body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown }): Promise<string> {
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
