import fc from 'fast-check';

/**
 * Generators of NewPlant-like request bodies for the reliability suites. Each one comes with
 * what the contract says of it, worked out here from how it was built (not by asking the code
 * under test): `valid` with the exact plant the store must then hold, `invalid`, or `either`
 * where the contract leaves it open (random bytes, parser depth limits).
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
/** The server's default body limit (README: 413 for a body over 64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ExpectedPlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** One JSON member value as text, and whether the contract accepts it for its field. */
interface FieldText<T> {
  text: string;
  valid: boolean;
  value?: T;
}

export type Verdict =
  | { kind: 'valid'; plant: ExpectedPlant }
  | { kind: 'invalid' }
  /**
   * Unspecified by the contract: 200, 400 or 409, and a 200 must store exactly what was sent:
   * `plant` when the generator knows it.
   */
  | { kind: 'either'; plant?: ExpectedPlant };

export interface GeneratedBody {
  /** What the body is, for failure messages. */
  label: string;
  body: Buffer;
  verdict: Verdict;
}

/** How fast-check prints a body in a counterexample: its label and its first bytes, not all of them. */
function describeBody(this: GeneratedBody): string {
  const text = this.body.toString('utf8');
  const preview = text.length > 300 ? `${text.slice(0, 300)}… (${this.body.length} bytes)` : text;
  return `${this.label}: ${JSON.stringify(preview)} [${this.verdict.kind}]`;
}

/** Gives a generated body a short printed form (fast-check's toStringMethod). */
export function printable(body: GeneratedBody): GeneratedBody {
  return Object.assign(body, { [fc.toStringMethod]: describeBody });
}

/** Every UTF-16 code unit as a \uXXXX escape: the same JSON string, spelled the long way. */
export function escapeAll(text: string): string {
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    out += `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** A JSON string literal for `text`, plainly or fully escaped. */
const jsonString = (text: string) => fc.constantFrom(JSON.stringify(text), escapeAll(text));

// ---- ids -----------------------------------------------------------------------------------

const edgeIds = [
  INT64_MIN,
  INT64_MIN + 1n,
  INT64_MAX,
  INT64_MAX - 1n,
  0n,
  1n,
  -1n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n) - 1n,
  2n ** 31n,
  -(2n ** 31n) - 1n,
  2n ** 32n,
  2n ** 63n - 1024n,
];

export const validIdValue: fc.Arbitrary<bigint> = fc.oneof(
  fc.constantFrom(...edgeIds),
  fc.bigInt(INT64_MIN, INT64_MAX),
  fc.integer().map(BigInt),
);

const validId: fc.Arbitrary<FieldText<bigint>> = fc.oneof(
  { weight: 10, arbitrary: validIdValue.map((id) => ({ text: `${id}`, valid: true, value: id })) },
  // JSON allows -0; as an int64 it is 0.
  { weight: 1, arbitrary: fc.constant({ text: '-0', valid: true, value: 0n }) },
);

const invalidId: fc.Arbitrary<FieldText<bigint>> = fc
  .oneof(
    fc.bigInt(INT64_MAX + 1n, 2n ** 200n).map((n) => `${n}`),
    fc.bigInt(-(2n ** 200n), INT64_MIN - 1n).map((n) => `${n}`),
    fc.constantFrom(
      '9223372036854775808',
      '-9223372036854775809',
      '18446744073709551616',
      '1.5',
      '1.0',
      '0.0',
      '-0.0',
      '1e3',
      '1E3',
      '1e+2',
      '-1e-2',
      '0e0',
      '9007199254740993.0',
      '9223372036854775807.0',
      '9223372036854775807e0',
      '1e400',
      '-1e400',
      '9'.repeat(400),
      `-${'9'.repeat(5000)}`,
      '"1"',
      '"9223372036854775807"',
      '""',
      'true',
      'false',
      'null',
      '{}',
      '[]',
      '[1]',
      '{"id":1}',
    ),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((value) => !Number.isInteger(value))
      .map((value) => JSON.stringify(value)),
    fc.integer().map((value) => JSON.stringify(String(value))),
  )
  .map((text) => ({ text, valid: false }));

// ---- names and tags ------------------------------------------------------------------------

const controlChar = fc
  .integer({ min: 0, max: 0x9f })
  .filter((code) => code < 0x20 || code >= 0x7f)
  .map(String.fromCharCode);

/** Strings of 1 to 1024 UTF-16 code units, well formed: every name the contract accepts. */
const acceptableText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: controlChar, minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'n'.repeat(1024),
      'é'.repeat(1024),
      '🌿'.repeat(512),
      `${'🌿'.repeat(511)}xy`,
      '\u0000'.repeat(1024),
      '\u2028\u2029\ufeff\u200b\u202e',
      'Robert"); DROP TABLE plants;--',
      "' OR 1=1 --",
      '\\',
      '"',
      '</script><script>alert(1)</script>',
      '%s%n%x',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder as data is the point.
      '${process.exit(1)}',
      '__proto__',
      'constructor',
      '\ud83c\udf3f',
      'ﷺ',
      '𒐫'.repeat(300),
    ),
  },
);

function textField(options: { nonEmpty: boolean }): fc.Arbitrary<FieldText<string>> {
  const ok = (options.nonEmpty ? acceptableText : fc.oneof(acceptableText, fc.constant(''))).chain((text) =>
    jsonString(text).map((json) => ({ text: json, valid: true, value: text })),
  );
  const bad = fc
    .oneof(
      fc.constantFrom(
        ...(options.nonEmpty ? ['""'] : []),
        JSON.stringify('n'.repeat(1025)),
        JSON.stringify(`${'🌿'.repeat(512)}x`),
        JSON.stringify('x'.repeat(5000)),
        '"\\ud800"',
        '"a\\udfffb"',
        '"\\ud83c"',
        '"\\udf3f\\ud83c"',
        'null',
        'true',
        '0',
        '-1.5e3',
        '[]',
        '["x"]',
        '{}',
        '{"name":"x"}',
      ),
      fc.integer().map(String),
    )
    .map((text) => ({ text, valid: false }));
  return fc.oneof({ weight: 4, arbitrary: ok }, { weight: 1, arbitrary: bad });
}

// ---- extra members -------------------------------------------------------------------------

const extraKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    '__defineGetter__',
    'isPrototypeOf',
    'Id',
    'NAME',
    ' id',
    'id ',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 10 }),
);

/** A value an attacker would hope to see inherited through a prototype. */
const pollution = fc.constantFrom(
  '{"tag":"polluted","name":"polluted","id":1}',
  '{"__proto__":{"tag":"polluted"}}',
  '{"constructor":{"prototype":{"tag":"polluted"}}}',
);

const extraValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  pollution,
  fc.integer({ min: 1, max: 150 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1, max: 150 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.constantFrom('1e400', '-0', '123456789012345678901234567890', '"\\u0000"', `"${'x'.repeat(3000)}"`),
);

// ---- whole bodies --------------------------------------------------------------------------

/** JSON white space between tokens (never anything else). */
const space = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n', '  \n\t ');

interface Member {
  key: string;
  value: string;
}

function assemble(members: readonly Member[], spaces: readonly string[]): string {
  let index = 0;
  const ws = () => spaces[index++ % spaces.length] ?? '';
  const parts = members.map((member) => `${ws()}${member.key}${ws()}:${ws()}${member.value}${ws()}`);
  return `${ws()}{${parts.join(',')}${members.length === 0 ? ws() : ''}}${ws()}`;
}

/**
 * Objects built like a NewPlant, each field present or not, of the right type and range or
 * not, with extra keys (prototype names included) in any order and any JSON spacing.
 */
export const newPlantLikeBody: fc.Arbitrary<GeneratedBody> = fc
  .record({
    id: fc.option(fc.oneof({ weight: 4, arbitrary: validId }, { weight: 1, arbitrary: invalidId }), {
      freq: 12,
    }),
    name: fc.option(textField({ nonEmpty: true }), { freq: 12 }),
    tag: fc.option(textField({ nonEmpty: false }), { freq: 2 }),
    extras: fc.array(fc.record({ key: extraKey.chain(jsonString), value: extraValue }), { maxLength: 3 }),
    spaces: fc.array(space, { minLength: 1, maxLength: 8 }),
    keyStyle: fc.constantFrom('plain', 'plain', 'plain', 'escaped'),
    order: fc.nat(),
  })
  .map(({ id, name, tag, extras, spaces, keyStyle, order }) => {
    const key = (k: string) => (keyStyle === 'plain' ? JSON.stringify(k) : escapeAll(k));
    const members: Member[] = [];
    if (id !== null) members.push({ key: key('id'), value: id.text });
    if (name !== null) members.push({ key: key('name'), value: name.text });
    if (tag !== null) members.push({ key: key('tag'), value: tag.text });
    // Extra keys spelled like id/name/tag (after unescaping) would be duplicates: leave them out.
    const seen = new Set(['id', 'name', 'tag']);
    for (const extra of extras) {
      const decoded = JSON.parse(extra.key) as string;
      if (seen.has(decoded)) continue;
      seen.add(decoded);
      members.push({ key: extra.key, value: extra.value });
    }
    // Rotate so that the fields come in any order.
    const rotated = members.map((_member, index) => members[(index + order) % members.length] as Member);
    const text = assemble(rotated, spaces);
    const valid = id?.valid === true && name?.valid === true && (tag === null || tag.valid);
    const verdict: Verdict = valid
      ? {
          kind: 'valid',
          plant:
            tag === null
              ? { id: id.value as bigint, name: name.value as string }
              : { id: id.value as bigint, name: name.value as string, tag: tag.value as string },
        }
      : { kind: 'invalid' };
    return printable({ label: 'NewPlant-like object', body: Buffer.from(text, 'utf8'), verdict });
  });

/** Bodies that are not JSON objects at all, or not JSON, or not UTF-8. */
export const notAnObjectBody: fc.Arbitrary<GeneratedBody> = fc
  .oneof(
    fc.jsonValue({ maxDepth: 4 }).map((value) => ({
      label: 'random JSON value',
      body: Buffer.from(JSON.stringify(value) ?? 'null', 'utf8'),
      verdict: (typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { kind: 'either' }
        : { kind: 'invalid' }) as Verdict,
    })),
    fc.json({ maxDepth: 3 }).map((text) => ({
      label: 'random JSON text',
      body: Buffer.from(text, 'utf8'),
      verdict: { kind: 'either' } as Verdict,
    })),
    fc.uint8Array({ maxLength: 400 }).map((bytes) => ({
      label: 'random bytes',
      body: Buffer.from(bytes),
      verdict: { kind: 'either' } as Verdict,
    })),
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({
      label: 'random text',
      body: Buffer.from(text, 'utf8'),
      verdict: { kind: 'either' } as Verdict,
    })),
    fc
      .tuple(
        validIdValue,
        fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe2, 0x82]),
      )
      .map(([id, bytes]) => ({
        label: 'invalid UTF-8 inside a name',
        body: Buffer.concat([Buffer.from(`{"id":${id},"name":"a`), Buffer.from(bytes), Buffer.from('b"}')]),
        verdict: { kind: 'invalid' } as Verdict,
      })),
    fc
      .constantFrom(
        '',
        ' ',
        '{',
        '}',
        '{"id":1,"name":"x"',
        '{"id":1,"name":"x"}}',
        '{"id":1,"name":"x"} {"id":2,"name":"y"}',
        '{"id":1,"name":"x",}',
        "{'id':1,'name':'x'}",
        '{id:1,name:"x"}',
        '{"id":01,"name":"x"}',
        '{"id":+1,"name":"x"}',
        '{"id":0x10,"name":"x"}',
        '{"id":NaN,"name":"x"}',
        '{"id":Infinity,"name":"x"}',
        '{"id":1,"name":"x\u0001"}',
        '{"id":1,"name":"\\x41"}',
        '{"id":1,"name":"x"}\u0000',
        '{"id":1,\u00a0"name":"x"}',
        '{"id":1,\f"name":"x"}',
        '[{"id":1,"name":"x"}]',
        '"{\\"id\\":1,\\"name\\":\\"x\\"}"',
        'null',
        'true',
        '1',
        '[]',
      )
      .map((text) => ({
        label: 'hand-broken JSON',
        body: Buffer.from(text, 'utf8'),
        verdict: { kind: 'invalid' } as Verdict,
      })),
    // RFC 8259 lets a parser ignore a byte-order mark or refuse it.
    fc.constant({
      label: 'a byte-order mark',
      body: Buffer.from('\ufeff{"id":1,"name":"x"}'),
      verdict: { kind: 'either', plant: { id: 1n, name: 'x' } } as Verdict,
    }),
  )
  .map(printable);

/** Deeply nested values, as an extra member of a valid plant or as the whole body. */
export const deepBody: fc.Arbitrary<GeneratedBody> = fc
  .tuple(
    validIdValue,
    fc.constantFrom(10, 100, 1000, 3000, 6000, 12_000, 30_000),
    fc.constantFrom('array', 'object'),
    fc.boolean(),
  )
  .map(([id, depth, shape, wholeBody]) => {
    const nested =
      shape === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const text = wholeBody ? nested : `{"id":${id},"name":"deep","x":${nested}}`;
    const size = Buffer.byteLength(text);
    // The contract leaves the parser's depth limit open: shallow must parse, deep may be refused.
    const verdict: Verdict =
      size > MAX_BODY_BYTES || wholeBody
        ? { kind: 'invalid' }
        : depth <= 100
          ? { kind: 'valid', plant: { id, name: 'deep' } }
          : { kind: 'either', plant: { id, name: 'deep' } };
    return printable({
      label: `nested ${shape} ${depth} deep${wholeBody ? ' (whole body)' : ''}`,
      body: Buffer.from(text),
      verdict,
    });
  });

/** Bodies around and over the 64 KiB limit: exactly at it is fine, one byte more is 413. */
export const sizedBody: fc.Arbitrary<GeneratedBody> = fc
  .tuple(validIdValue, fc.constantFrom(-1000, -1, 0, 1, 2, 1000, 30_000, 60_000), fc.constantFrom('x', 'é', '🌿'))
  .map(([id, overBy, unit]) => {
    const head = `{"id":${id},"name":"big","pad":"`;
    const target = MAX_BODY_BYTES + overBy;
    const unitBytes = Buffer.byteLength(unit);
    const room = target - Buffer.byteLength(head) - 2;
    const count = Math.floor(room / unitBytes);
    const filler = 'y'.repeat(room - count * unitBytes);
    const text = `${head}${unit.repeat(count)}${filler}"}`;
    const size = Buffer.byteLength(text);
    return printable({
      label: `a body of ${size} bytes`,
      body: Buffer.from(text, 'utf8'),
      verdict: size > MAX_BODY_BYTES ? { kind: 'invalid' } : { kind: 'valid', plant: { id, name: 'big' } },
    });
  });

/** A name or tag far over 1024 characters but inside the body limit: 400, not 413. */
export const longTextBody: fc.Arbitrary<GeneratedBody> = fc
  .tuple(validIdValue, fc.integer({ min: 1025, max: 20_000 }), fc.constantFrom('name', 'tag'))
  .map(([id, length, field]) =>
    printable({
      label: `a ${field} of ${length} characters`,
      body: Buffer.from(
        field === 'name'
          ? `{"id":${id},"name":"${'n'.repeat(length)}"}`
          : `{"id":${id},"name":"x","tag":"${'t'.repeat(length)}"}`,
      ),
      verdict: { kind: 'invalid' } as Verdict,
    }),
  );
