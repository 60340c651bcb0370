import { DecimalLiteral } from './exact-json.js';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export const INT64_RANGE_MESSAGE = `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`;

/** Decimal digits as they may be typed in a flag or a URL path: optional minus, digits only. */
const int64Text = /^-?\d{1,19}$/;

/**
 * Reads an int64 from what an exact JSON parse yields (number, bigint) or from text
 * typed by a user. Returns undefined for anything that is not exactly an integer in
 * range: strings in JSON, fractions, exponents, booleans, null.
 */
export function toInt64(value: unknown, options: { fromText?: boolean } = {}): bigint | undefined {
  let id: bigint;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else if (options.fromText === true && typeof value === 'string' && int64Text.test(value.trim()))
    id = BigInt(value.trim());
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
