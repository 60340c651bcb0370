import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/**
 * A JSON number with a fraction or an exponent (even `1.0`), which an int64 field refuses rather
 * than rounding: `9007199254740993.0` must not become the id 9007199254740992.
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

/** `source-text`: the engine's JSON.parse with source text access, lossless-json only where it cannot tell. */
export type ExactJsonParser = 'source-text' | 'lossless-json';

/**
 * JSON.parse without precision loss: integers beyond 2^53 as bigint, fractions and exponents as
 * DecimalLiteral. SyntaxError also on a duplicate key with two values; `__proto__` keys are plain data.
 */
export function parseJsonExact(text: string, parser: ExactJsonParser = 'source-text'): unknown {
  if (parser === 'source-text') {
    const value = parseNatively(text);
    if (value !== noAnswer) return value;
  }
  try {
    return parseLossless(text, null, parseNumberExactly);
  } catch (error) {
    // The parser recurses per level: "Maximum call stack size exceeded" is no message for a user.
    if (error instanceof RangeError) throw new SyntaxError('JSON nested too deeply', { cause: error });
    throw error;
  }
}

const noAnswer = Symbol('lossless-json decides');

/** A number a double may not hold exactly (2^53 has 16 digits); a match inside a string only costs time. */
const mayHoldInexactNumber = /\d(?:[.eE]|\d{15})/;

const MAX_NATIVE_DEPTH = 256;

/**
 * The engine's JSON.parse, a tenth of lossless-json's cost without a reviver, still less with one.
 * It leaves to lossless-json (noAnswer) invalid JSON, deep nesting and duplicate keys, which JSON.parse
 * merges: every member has a colon, so fewer members than colons means one was merged away (or a
 * string holds a colon).
 */
function parseNatively(text: string): unknown {
  try {
    if (!mayHoldInexactNumber.test(text)) {
      const value: unknown = JSON.parse(text);
      return countMembers(value, 0) === countColons(text) ? value : noAnswer;
    }
    revivedMembers = 0;
    const value: unknown = JSON.parse(text, reviveExactly);
    // The reviver's first call is for the root, held by a wrapper object: not a member.
    return revivedMembers - 1 === countColons(text) ? value : noAnswer;
  } catch {
    return noAnswer;
  }
}

let revivedMembers = 0;

function reviveExactly(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (!Array.isArray(this)) revivedMembers++;
  return typeof value === 'number' && context?.source !== undefined ? parseNumberExactly(context.source) : value;
}

function countMembers(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (depth === MAX_NATIVE_DEPTH) throw new RangeError('nested too deeply for the member count');
  let members = 0;
  if (Array.isArray(value)) {
    for (const item of value) members += countMembers(item, depth + 1);
    return members;
  }
  for (const item of Object.values(value)) members += 1 + countMembers(item, depth + 1);
  return members;
}

function countColons(text: string): number {
  let colons = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) colons++;
  return colons;
}

/** Writes bigint values as plain JSON integers, digit for digit. */
export function stringifyJsonExact(value: unknown): string {
  const text = stringifyLossless(value);
  if (text === undefined) throw new TypeError('value cannot be written as JSON');
  return text;
}
