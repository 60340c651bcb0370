import { DecimalLiteral } from './exact-json.js';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export const INT64_RANGE_MESSAGE = `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`;

/** An id in a flag or a URL path is written as JSON writes it: one id, one spelling everywhere. */
const int64Text = /^-?(0|[1-9]\d{0,18})$/;

export const INT64_TEXT_MESSAGE = `${INT64_RANGE_MESSAGE}, written as JSON writes it (digits and a leading - if negative; no spaces, no +, no leading zeros)`;

/** From an exact JSON parse (number, bigint) or typed text; undefined for anything else, strings in JSON too. */
export function toInt64(value: unknown, options: { fromText?: boolean } = {}): bigint | undefined {
  let id: bigint;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else if (options.fromText === true && typeof value === 'string' && int64Text.test(value)) id = BigInt(value);
  else return undefined;
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

export function describeNonInt64(value: unknown): string {
  if (value === undefined) return 'is required';
  if (value instanceof DecimalLiteral) return `${INT64_RANGE_MESSAGE} (got ${value.text})`;
  if (typeof value === 'string') return `must be a JSON number, not a string (got ${JSON.stringify(value)})`;
  if (typeof value === 'bigint' || typeof value === 'number') return `${INT64_RANGE_MESSAGE} (got ${value})`;
  return `${INT64_RANGE_MESSAGE} (got ${value === null ? 'null' : typeof value})`;
}
