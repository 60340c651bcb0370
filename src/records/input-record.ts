import { parseJsonExact } from '../schema/exact-json.js';

/**
 * One record of the input, with the line it starts on (and its index when it is an element of
 * a JSON array, whose records may share a line): its parsed value, or why it is not one.
 */
export type InputRecord =
  | { line: number; index?: number; value: unknown }
  | { line: number; index?: number; error: string };

/**
 * The longest record read. A NewPlant is under 8 KB (1,024-character name and tag, each
 * character at most a 6-character escape, and an id); a pretty-printed one is not much more.
 * Anything longer is refused unread, so that no input (a 128 MiB line, /dev/zero) takes more
 * memory than this.
 */
export const MAX_RECORD_CHARS = 64 * 1024;

/** The error of a record longer than MAX_RECORD_CHARS. */
export const TOO_LONG = 'too long: more than 64 KiB, longer than any NewPlant can be (not read)';

/** The error of a record holding bytes that are not UTF-8 (see decodeUtf8Strictly). */
export const NOT_UTF8 = 'not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)';

/** A lone low surrogate: what decodeUtf8Strictly puts for a byte that is not UTF-8. */
const notUtf8Marker = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** The record whose text is `text`: its value, or why it is not JSON (or not UTF-8). */
export function parseRecord(text: string, line: number, index?: number): InputRecord {
  if (!text.isWellFormed() && notUtf8Marker.test(text)) return failed(line, index, NOT_UTF8);
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    return failed(line, index, `not valid JSON: ${(error as Error).message}`);
  }
  // One object per record, built whole (every record of a long input passes here).
  return index === undefined ? { line, value } : { line, index, value };
}

/** A record that is not one, for `error`. */
export function failed(line: number, index: number | undefined, error: string): InputRecord {
  return index === undefined ? { line, error } : { line, index, error };
}
