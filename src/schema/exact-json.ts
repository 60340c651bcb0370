import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/**
 * A JSON number written with a fraction or an exponent (`1.5`, `1e3`, even `1.0`).
 * Kept apart from integers so that an int64 field can refuse it instead of silently
 * rounding it: `9007199254740993.0` must not become the id 9007199254740992.
 */
export class DecimalLiteral {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

const integerLiteral = /^-?(?:0|[1-9]\d*)$/;

function parseNumberExactly(text: string): number | bigint | DecimalLiteral {
  if (!integerLiteral.test(text)) return new DecimalLiteral(text);
  const value = Number(text);
  // Above 2^53 a JS number is no longer exact: keep every digit in a bigint.
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

/**
 * JSON.parse without precision loss: integers beyond 2^53 come back as bigint,
 * fractions and exponents as DecimalLiteral. Throws SyntaxError like JSON.parse
 * (also on a duplicate key with two different values). `__proto__` keys are kept
 * as plain data.
 */
export function parseJsonExact(text: string): unknown {
  try {
    return parseLossless(text, null, parseNumberExactly);
  } catch (error) {
    // The parser recurses once per level: past what the stack holds (some thousands of levels)
    // the engine's "Maximum call stack size exceeded" is no message for a user.
    if (error instanceof RangeError) throw new SyntaxError('JSON nested too deeply', { cause: error });
    throw error;
  }
}

/** JSON.stringify that writes bigint values as plain JSON integers, digit for digit. */
export function stringifyJsonExact(value: unknown): string {
  const text = stringifyLossless(value);
  if (text === undefined) throw new TypeError('value cannot be written as JSON');
  return text;
}
