import { INT64_TEXT_MESSAGE, toInt64 } from '../schema/int64.js';
import { HttpError } from './errors.js';

/** Plants a page when the client does not say, and the most it may ask for. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/**
 * The most bytes of plants a page holds. Plants of 1,024 escaped control characters in name and
 * tag are about 12 KB each, so 100 of them would not fit what `plants list` reads of an answer
 * (1 MiB, src/client): a page ends at whichever comes first, `limit` plants or these bytes. At
 * least one plant a page, which is far smaller.
 */
export const MAX_PAGE_BYTES = 512 * 1024;

/**
 * `?limit=N&after=ID` of GET /plants: limit a whole number from 1 (capped at 1000, default
 * 100), after an int64 checked like an id in a body. Anything else is a 400 naming it.
 */
export function parseListQuery(search: string): { limit: number; after: bigint | undefined } {
  const params = new URLSearchParams(search);
  const limitText = params.get('limit');
  let limit = DEFAULT_PAGE_SIZE;
  if (limitText !== null) {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1) {
      throw new HttpError(
        400,
        `limit: must be a whole number from 1 to ${MAX_PAGE_SIZE} (got ${JSON.stringify(limitText)})`,
      );
    }
    limit = Math.min(MAX_PAGE_SIZE, Number(limitText));
  }
  const afterText = params.get('after');
  return { limit, after: afterText === null ? undefined : parsePathId(afterText, 'after') };
}

/** An id from a URL (`/plants/{id}`, `?after=`), checked like an id in a body: int64, exact. */
export function parsePathId(text: string, field = 'id'): bigint {
  const id = toInt64(text, { fromText: true });
  if (id === undefined) {
    throw new HttpError(400, `${field}: ${INT64_TEXT_MESSAGE} (got ${JSON.stringify(text.slice(0, 40))})`);
  }
  return id;
}

/**
 * The `{id}` of `/plants/{id}` as it came (percent-escapes and all), or undefined when the path
 * is not of that form. Routing needs only this; `plantIdFromPath` decodes it, after the token.
 */
export function plantIdSegment(path: string): string | undefined {
  const match = /^\/plants\/([^/]+)$/.exec(path);
  return match === null ? undefined : (match[1] ?? '');
}

/** The id of `/plants/{id}`, percent-decoded and checked: a malformed escape is the client's 400. */
export function plantIdFromPath(path: string): bigint {
  const segment = plantIdSegment(path) ?? '';
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    throw new HttpError(
      400,
      `id: the path has a malformed percent-escape (got ${JSON.stringify(segment.slice(0, 40))})`,
    );
  }
  return parsePathId(text);
}

/**
 * One page as a JSON array: the first `limit` items, fewer when they would pass `maxBytes`.
 * `nextAfter`: the id of the last item shown, when some were left for the next page.
 */
export function renderPage<T extends { id: bigint }>(
  items: readonly T[],
  limit: number,
  render: (item: T) => string,
  maxBytes = MAX_PAGE_BYTES,
): { body: string; nextAfter: bigint | undefined } {
  const parts: string[] = [];
  let bytes = 2;
  let last: T | undefined;
  const end = Math.min(limit, items.length);
  for (let index = 0; index < end; index += 1) {
    const item = items[index] as T;
    const json = render(item);
    const size = Buffer.byteLength(json) + 1;
    if (parts.length > 0 && bytes + size > maxBytes) break;
    parts.push(json);
    bytes += size;
    last = item;
  }
  const more = parts.length < items.length;
  return { body: `[${parts.join(',')}]`, nextAfter: more ? last?.id : undefined };
}

/** `Link: </plants?limit=N&after=ID>; rel="next"` (RFC 8288) for the page after `lastId`. */
export function nextPageLink(limit: number, lastId: bigint): string {
  return `</plants?limit=${limit}&after=${lastId}>; rel="next"`;
}
