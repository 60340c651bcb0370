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
 * How parseJsonExact reads a text: `source-text` with the engine's JSON.parse, which hands a
 * reviver each number's source text (TC39 "JSON.parse source text access"), leaving to
 * lossless-json only what it cannot tell apart; `lossless-json` with lossless-json's parser,
 * written in JavaScript, always.
 */
export type ExactJsonParser = 'source-text' | 'lossless-json';

/**
 * JSON.parse without precision loss: integers beyond 2^53 come back as bigint,
 * fractions and exponents as DecimalLiteral. Throws SyntaxError like JSON.parse
 * (also on a duplicate key with two different values). `__proto__` keys are kept
 * as plain data. The result is the same whichever `parser` reads it.
 */
export function parseJsonExact(text: string, parser: ExactJsonParser = 'source-text'): unknown {
  if (parser === 'source-text') {
    const value = parseNatively(text);
    if (value !== noAnswer) return value;
  }
  try {
    return parseLossless(text, null, parseNumberExactly);
  } catch (error) {
    // The parser recurses once per level: past what the stack holds (some thousands of levels)
    // the engine's "Maximum call stack size exceeded" is no message for a user.
    if (error instanceof RangeError) throw new SyntaxError('JSON nested too deeply', { cause: error });
    throw error;
  }
}

const noAnswer = Symbol('lossless-json decides');

/**
 * A JSON number that a double may not hold exactly: a fraction or an exponent (a digit then
 * `.`, `e` or `E`), or 16 digits and more (2^53 has 16). Matching inside a string only costs
 * the slower way; outside strings nothing else looks like this.
 */
const mayHoldInexactNumber = /\d(?:[.eE]|\d{15})/;

/** Levels of nesting the member count below walks; deeper texts go to lossless-json. */
const MAX_NATIVE_DEPTH = 256;

/**
 * The engine's JSON.parse, which is a tenth of lossless-json's cost when every number is a safe
 * integer (no reviver), and still less with the source-text reviver. What it cannot tell apart
 * it leaves to lossless-json (noAnswer), so that the answer and the error message are always
 * lossless-json's: invalid JSON, nesting beyond MAX_NATIVE_DEPTH, and duplicate keys, which
 * JSON.parse silently merges. A duplicate shows in the count: every `:` outside a string
 * separates a member, so a text has at least as many colons as members; fewer members in the
 * result than colons in the text means a member was merged away (or a string holds a colon).
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

/** JSON.stringify that writes bigint values as plain JSON integers, digit for digit. */
export function stringifyJsonExact(value: unknown): string {
  const text = stringifyLossless(value);
  if (text === undefined) throw new TypeError('value cannot be written as JSON');
  return text;
}
