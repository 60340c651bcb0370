import { INT64_TEXT_MESSAGE, toInt64 } from '../schema/int64.js';
import { HttpError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/**
 * Plants of 1,024 escaped control characters in name and tag are about 12 KB each: 100 would not fit what
 * `plants list` reads of an answer (1 MiB). At least one plant a page.
 */
export const MAX_PAGE_BYTES = 512 * 1024;

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

export function parsePathId(text: string, field = 'id'): bigint {
  const id = toInt64(text, { fromText: true });
  if (id === undefined) {
    throw new HttpError(400, `${field}: ${INT64_TEXT_MESSAGE} (got ${JSON.stringify(text.slice(0, 40))})`);
  }
  return id;
}

/** Still percent-escaped: routing needs only this; `plantIdFromPath` decodes it, after the token. */
export function plantIdSegment(path: string): string | undefined {
  const match = /^\/plants\/([^/]+)$/.exec(path);
  return match === null ? undefined : (match[1] ?? '');
}

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

/** RFC 8288. */
export function nextPageLink(limit: number, lastId: bigint): string {
  return `</plants?limit=${limit}&after=${lastId}>; rel="next"`;
}
