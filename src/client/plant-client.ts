import { parseJsonExact } from '../schema/exact-json.js';
import {
  ErrorBody,
  type NewPlant,
  newPlantJson,
  OUTCOME_UNKNOWN,
  Plant,
  StoredPlant,
  StoredPlants,
} from '../schema/plant.js';
import { formatBaseUrl } from './base-url.js';
import { AuthRejectedError, CrossOriginPageError, ResponseError, UnexpectedBodyError } from './errors.js';
import { type Exchange, exchange, withAttemptsOn } from './exchange.js';
import { nextLink } from './link-header.js';
import type { RetryPolicy } from './retry-policy.js';
import { type Answer, type PlantClientOptions, Transport } from './transport.js';

/** A plant the server accepted: the parsed Plant and the exact text it was sent as. */
export interface AddedPlant {
  status: number;
  plant: Plant;
  rawBody: string;
  attempts: number;
}

/** Speaks the plant store interface over undici. Knows nothing of config, flags or terminals. */
export class PlantClient {
  readonly #options: PlantClientOptions;
  readonly #transport: Transport;
  readonly #source: AnswerSource;
  #lastContentType = '';
  #lastIsJson = false;

  constructor(options: PlantClientOptions) {
    this.#options = options;
    this.#transport = new Transport(options);
    this.#source = {
      baseUrl: options.baseUrl,
      tokenSource: options.token === undefined ? undefined : (options.tokenSource ?? 'config'),
      storeArgs: options.storeArgs,
    };
  }

  /** POST /plants. Rejects with ResponseError, AuthRejectedError or UnreachableError. */
  addPlant(newPlant: NewPlant, options: { retry?: RetryPolicy } = {}): Promise<AddedPlant> {
    const body = newPlantJson(newPlant);
    // Every record of a bulk add that goes well (a 200 carrying the plant sent, written once) skips the
    // retry loop; anything else enters it as its attempt 1.
    return this.#transport.send('POST', this.#transport.plantsUrl, body, true).then(
      (answer) =>
        answer.sends === 1 && (answer.status === 200 || answer.status === 201) && this.#isPlantSent(answer, body)
          ? { status: answer.status, plant: newPlant, rawBody: answer.text, attempts: 1 }
          : this.#retry(newPlant, body, options.retry, { answer }),
      (error: unknown) => this.#retry(newPlant, body, options.retry, { error }),
    );
  }

  #retry(newPlant: NewPlant, body: string, policy: RetryPolicy | undefined, first: Parameters<typeof exchange>[3]) {
    const url = this.#transport.plantsUrl;
    return exchange(this.#transport, { method: 'POST', url, body, pipelined: true }, policy, first).then((sent) =>
      this.#added(newPlant, body, sent),
    );
  }

  /** An answer that is, byte for byte, the plant sent (as plants serve answers) is that plant: no parse. */
  #isPlantSent(answer: Answer, body: string): boolean {
    return answer.text === body && this.#isJson(answer.contentType);
  }

  #added(newPlant: NewPlant, body: string, sent: Exchange): AddedPlant {
    const { answer, attempts } = sent;
    if (answer.status === 200 || answer.status === 201) {
      if (this.#isPlantSent(answer, body)) {
        return { status: answer.status, plant: newPlant, rawBody: answer.text, attempts };
      }
      try {
        return { ...plantOf(answer, this.#source), attempts };
      } catch (error) {
        throw error instanceof ResponseError ? withAttemptsOn(error, attempts) : error;
      }
    }
    throw withAttemptsOn(this.#errorOf(sent), attempts, sent.elapsedMs);
  }

  /** After an attempt that may have been applied, a 409 may be its doing, and any other failure is in doubt. */
  #errorOf({ answer, mayHaveBeenApplied }: Exchange): ResponseError {
    const error = errorOf(answer, this.#source);
    if (!mayHaveBeenApplied) return error;
    if (answer.status === 409) {
      // Most likely our own first attempt: the same answer (status, body, store, exit code), said otherwise.
      const again = new ResponseError(
        `${error.message} (after a retry: the first attempt may have added it before the connection dropped)`,
        error,
      );
      again.afterRetry = true;
      again.mayHaveBeenApplied = error.mayHaveBeenApplied;
      return again;
    }
    error.mayHaveBeenApplied = true;
    return error;
  }

  /** isJsonType, remembering the last content type (a store answers with one). */
  #isJson(contentType: string): boolean {
    if (contentType !== this.#lastContentType) {
      this.#lastContentType = contentType;
      this.#lastIsJson = isJsonType(contentType);
    }
    return this.#lastIsJson;
  }

  /** One page of GET /plants (a `plants serve` extension), and the next page's URL from its Link header. */
  async listPage(page: { limit?: number; after?: bigint } | URL): Promise<PlantPage> {
    const url = page instanceof URL ? page : new URL(this.#transport.plantsUrl);
    if (!(page instanceof URL)) {
      if (page.limit !== undefined) url.searchParams.set('limit', String(page.limit));
      if (page.after !== undefined) url.searchParams.set('after', String(page.after));
    }
    return plantPageOf(await this.#read('GET', url), url, this.#transport.plantsUrl.origin, this.#source);
  }

  /** POST /reset (`plants serve --allow-reset`): resolves with the first page of the store's seed. */
  async reset(): Promise<PlantPage> {
    const url = new URL(`${formatBaseUrl(this.#options.baseUrl)}/reset`);
    return plantPageOf(await this.#read('POST', url), url, this.#transport.plantsUrl.origin, this.#source);
  }

  /** Whether the store answers and takes the token (`plants status`), by GET /plants?limit=1. */
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

  /** GET /plants/{id}: the plant, or ResponseError (404 when there is none). */
  async getPlant(id: bigint, options: { retry?: RetryPolicy } = {}): Promise<{ plant: StoredPlant; rawBody: string }> {
    return storedPlantOf(await this.#read('GET', this.#plantUrl(id), options.retry), this.#source);
  }

  /** DELETE /plants/{id}; on ResponseError, `mayHaveBeenApplied` says it may be deleted all the same. */
  async deletePlant(id: bigint): Promise<void> {
    await this.#read('DELETE', this.#plantUrl(id));
  }

  /** A body-less request under the client's retry policy (or `retry`): a success's answer, else its error. */
  async #read(method: 'GET' | 'DELETE' | 'POST', url: URL, retry = this.#options.retry): Promise<Answer> {
    const sent = await exchange(this.#transport, { method, url }, retry);
    const { answer, attempts } = sent;
    if (answer.status === 200 || (method === 'DELETE' && answer.status === 204)) return answer;
    // A read changes nothing: whether it "may have been applied" means nothing for it.
    const error = method === 'GET' ? errorOf(answer, this.#source) : this.#errorOf(sent);
    throw withAttemptsOn(error, attempts, sent.elapsedMs);
  }

  get storeArgs(): readonly string[] {
    return this.#options.storeArgs ?? [];
  }

  #plantUrl(id: bigint): URL {
    return new URL(`${this.#transport.plantsUrl.pathname}/${id}`, this.#transport.plantsUrl);
  }
}

export interface AnswerSource {
  baseUrl: URL;
  /** undefined when no token was sent. */
  tokenSource: 'environment' | 'config' | undefined;
  storeArgs?: readonly string[] | undefined;
}

export type PlantPage = ReturnType<typeof plantPageOf>;

export function plantOf(answer: Answer, source: AnswerSource): { status: number; plant: Plant; rawBody: string } {
  return { status: answer.status, plant: bodyOf(answer, Plant, 'a Plant', source), rawBody: answer.text };
}

export function storedPlantOf(answer: Answer, source: AnswerSource): { plant: StoredPlant; rawBody: string } {
  return { plant: bodyOf(answer, StoredPlant, 'a Plant', source), rawBody: answer.text };
}

function bodyOf<T>(
  answer: Answer,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  expected: string,
  source: AnswerSource,
): T {
  const json = tryParseJson(answer.text, answer.contentType);
  const parsed = json.ok ? schema.safeParse(json.value) : undefined;
  if (parsed?.success) return parsed.data;
  throw notA(expected, answer, source);
}

/** A page of plants; CrossOriginPageError when the next is not on `origin` (the token would go there). */
export function plantPageOf(answer: Answer, url: URL, origin: string, source: AnswerSource) {
  const plants = bodyOf(answer, StoredPlants, 'a list of plants', source);
  const next = nextLink(answer.link, url);
  if (next !== undefined && next.origin !== origin) {
    throw new CrossOriginPageError({ nextOrigin: next.origin, baseUrl: source.baseUrl });
  }
  return { plants, next };
}

/** The error an answer that is no success stands for: AuthRejectedError for 401 and 403, else ResponseError. */
export function errorOf(answer: Answer, source: AnswerSource): ResponseError {
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
    return new AuthRejectedError(message, {
      status,
      body,
      rawBody,
      baseUrl: source.baseUrl,
      tokenSource: source.tokenSource,
      storeArgs: source.storeArgs,
    });
  }
  const error = new ResponseError(message, {
    status,
    body,
    rawBody,
    baseUrl: source.baseUrl,
    retryAfter: answer.retryAfter,
  });
  error.mayHaveBeenApplied = body.outcome === OUTCOME_UNKNOWN;
  return error;
}

export function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

function notA(expected: string, answer: Answer, source: AnswerSource): UnexpectedBodyError {
  return new UnexpectedBodyError({
    status: answer.status,
    expected,
    received: describeBody(answer.text, answer.contentType, expected),
    baseUrl: source.baseUrl,
  });
}

type JsonResult = { ok: true; value: unknown } | { ok: false };

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
