import { DecimalLiteral } from './exact-json.js';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export const INT64_RANGE_MESSAGE = `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`;

/**
 * An id typed in a flag or a URL path is written as JSON writes an integer, so that one id has
 * one spelling everywhere (`--id`, `/plants/{id}`, `?after=`, a JSON body): digits, a leading
 * minus if negative; no spaces, no `+`, no leading zeros (`062` is not 62, as in JSON).
 */
const int64Text = /^-?(0|[1-9]\d{0,18})$/;

/** Why typed text is not an id, for the message of an exit 2 or a 400. */
export const INT64_TEXT_MESSAGE = `${INT64_RANGE_MESSAGE}, written as JSON writes it (digits and a leading - if negative; no spaces, no +, no leading zeros)`;

/**
 * Reads an int64 from what an exact JSON parse yields (number, bigint) or from text
 * typed by a user. Returns undefined for anything that is not exactly an integer in
 * range: strings in JSON, fractions, exponents, booleans, null.
 */
export function toInt64(value: unknown, options: { fromText?: boolean } = {}): bigint | undefined {
  let id: bigint;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else if (options.fromText === true && typeof value === 'string' && int64Text.test(value)) id = BigInt(value);
  else return undefined;
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

/** Why a value is not an int64, in words for the message of a 400 or an exit 2. */
export function describeNonInt64(value: unknown): string {
  if (value === undefined) return 'is required';
  if (value instanceof DecimalLiteral) return `${INT64_RANGE_MESSAGE} (got ${value.text})`;
  if (typeof value === 'string') return `must be a JSON number, not a string (got ${JSON.stringify(value)})`;
  if (typeof value === 'bigint' || typeof value === 'number') return `${INT64_RANGE_MESSAGE} (got ${value})`;
  return `${INT64_RANGE_MESSAGE} (got ${value === null ? 'null' : typeof value})`;
}
