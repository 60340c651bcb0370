import { parseJsonExact } from '../schema/exact-json.js';
import { ErrorBody, OUTCOME_UNKNOWN, Plant, StoredPlant, StoredPlants } from '../schema/plant.js';
import { AuthRejectedError, CrossOriginPageError, ResponseError, UnexpectedBodyError } from './errors.js';
import { nextLink } from './link-header.js';
import type { Answer } from './transport.js';

// What an answer means: the Plant or page of plants asked for, or the error it stands for.

/** Where the answers come from, for the errors made of them. */
export interface AnswerSource {
  baseUrl: URL;
  /** Where the token sent came from; undefined when none was sent. */
  tokenSource: 'environment' | 'config' | undefined;
  /** PlantClientOptions.storeArgs. */
  storeArgs?: readonly string[] | undefined;
}

/** A page of plants, and where the next one is. */
export interface PlantPage {
  plants: StoredPlant[];
  next: URL | undefined;
}

/** The Plant of a success (an add's 200 or 201), or UnexpectedBodyError. */
export function plantOf(answer: Answer, source: AnswerSource): { status: number; plant: Plant; rawBody: string } {
  const { status, contentType, text } = answer;
  const json = tryParseJson(text, contentType);
  const plant = json.ok ? Plant.safeParse(json.value) : undefined;
  if (plant?.success) return { status, plant: plant.data, rawBody: text };
  throw notA('a Plant', answer, source);
}

/** The stored plant of GET /plants/{id}'s 200, or UnexpectedBodyError. */
export function storedPlantOf(answer: Answer, source: AnswerSource): { plant: StoredPlant; rawBody: string } {
  const json = tryParseJson(answer.text, answer.contentType);
  const plant = json.ok ? StoredPlant.safeParse(json.value) : undefined;
  if (plant?.success) return { plant: plant.data, rawBody: answer.text };
  throw notA('a Plant', answer, source);
}

/**
 * A page of plants from the 200 of `url`, with the next page's URL from its Link header:
 * UnexpectedBodyError when it is not a list of plants, CrossOriginPageError when the next page is
 * on another origin than `origin` (following it would send the token there).
 */
export function plantPageOf(answer: Answer, url: URL, origin: string, source: AnswerSource): PlantPage {
  const json = tryParseJson(answer.text, answer.contentType);
  const plants = json.ok && Array.isArray(json.value) ? StoredPlants.safeParse(json.value) : undefined;
  if (plants?.success !== true) throw notA('a list of plants', answer, source);
  const next = nextLink(answer.link, url);
  if (next !== undefined && next.origin !== origin) {
    throw new CrossOriginPageError({ nextOrigin: next.origin, baseUrl: source.baseUrl });
  }
  return { plants: plants.data, next };
}

/**
 * The error an answer that is no success stands for: AuthRejectedError for 401 and 403, else
 * ResponseError, which `mayHaveBeenApplied` when its Error says the outcome is unknown.
 */
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

/** A 409 for a POST sent again after the connection dropped: most likely our own first attempt. */
export function duplicateAfterRetry(error: ResponseError): ResponseError {
  // The same answer (status, body, store, exit code), said otherwise.
  const again = new ResponseError(
    `${error.message} (after a retry: the first attempt may have added it before the connection dropped)`,
    error,
  );
  again.afterRetry = true;
  again.mayHaveBeenApplied = error.mayHaveBeenApplied;
  return again;
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
