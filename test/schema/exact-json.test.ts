import { describe, expect, it } from 'vitest';
import {
  DecimalLiteral,
  type ExactJsonParser,
  parseJsonExact as parseWithDefault,
  stringifyJsonExact,
} from '../../src/schema/exact-json.js';

// Both ways of reading: JSON.parse with source text (the default, lossless-json for what it
// cannot tell apart) and lossless-json alone (forced here).
const parsers: ExactJsonParser[] = ['source-text', 'lossless-json'];

describe.each(parsers)('parseJsonExact with %s', (parser) => {
  const parseJsonExact = (text: string) => parseWithDefault(text, parser);

  it('keeps integers beyond 2^53 digit for digit as bigint', () => {
    expect(parseJsonExact('{"id":9223372036854775807}')).toEqual({ id: 9223372036854775807n });
    expect(parseJsonExact('[9007199254740993,9007199254740992]')).toEqual([9007199254740993n, 9007199254740992n]);
  });

  it('gives safe integers as plain numbers', () => {
    expect(parseJsonExact('{"id":42,"n":-7}')).toEqual({ id: 42, n: -7 });
  });

  it('marks fractions and exponents, even integral ones, as DecimalLiteral', () => {
    const value = parseJsonExact('[1.5,1.0,1e3]') as DecimalLiteral[];
    expect(value.map((item) => item instanceof DecimalLiteral && item.text)).toEqual(['1.5', '1.0', '1e3']);
  });

  it('keeps __proto__ as a plain key without touching the prototype', () => {
    const value = parseJsonExact('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(['', '{', '{"id":1,}', 'NaN', '{"a":1,"a":2}'])('throws SyntaxError on %j', (text) => {
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it("throws SyntaxError, not the engine's stack overflow, on nesting deeper than the stack holds", () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => parseJsonExact(deep)).toThrow(new SyntaxError('JSON nested too deeply'));
    // A depth the parser does hold is still read.
    expect(parseJsonExact(`${'['.repeat(500)}${']'.repeat(500)}`)).toBeInstanceOf(Array);
  });
  it('reads big ids beside strings with colons, escapes, unicode and nesting', () => {
    expect(
      parseJsonExact('{"id":-9223372036854775808,"name":"a:b \\"c\\": d","tag":"\\u00e9","n":[{"x":[1.25e-3,0,-0]}]}'),
    ).toEqual({
      id: -9223372036854775808n,
      name: 'a:b "c": d',
      tag: 'é',
      n: [{ x: [new DecimalLiteral('1.25e-3'), 0, -0] }],
    });
  });

  it.each([
    ['{"id":5,"id":6,"name":"fern"}', 'two values for one key'],
    ['{"a":{"b":1,"b":2},"c":"x:y"}', 'a nested duplicate beside a colon in a string'],
    ['{"id":9223372036854775807,"id":1}', 'a duplicate beside a big id'],
  ])('throws SyntaxError on %j (%s)', (text) => {
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it('takes a key given twice with the same value, as lossless-json does', () => {
    expect(parseJsonExact('{"a":1,"a":1,"b":"c:"}')).toEqual({ a: 1, b: 'c:' });
  });
});

describe('stringifyJsonExact', () => {
  it('writes bigint as JSON integers', () => {
    expect(stringifyJsonExact({ id: 9223372036854775807n, name: 'Oak' })).toBe(
      '{"id":9223372036854775807,"name":"Oak"}',
    );
  });

  it('round-trips the int64 edges', () => {
    for (const id of [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n]) {
      expect(parseWithDefault(stringifyJsonExact({ id }))).toEqual({ id });
    }
  });
});
