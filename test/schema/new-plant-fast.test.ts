import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecimalLiteral, stringifyJsonExact } from '../../src/schema/exact-json.js';
import { NewPlant, newPlantJson, toNewPlant } from '../../src/schema/plant.js';

// toNewPlant checks the common record without zod, and newPlantJson writes a NewPlant without
// lossless-json's generic walk: both must give exactly what the schema and stringifyJsonExact give.

const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constant(''),
  fc.constant('\uD800'),
  fc.constant('x'.repeat(1024)),
  fc.constant('x'.repeat(1025)),
);
const idValue = fc.oneof(
  fc.integer(),
  fc.constant(Number.MAX_SAFE_INTEGER),
  fc.constant(2 ** 53),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.constant(1.5),
  fc.constant(new DecimalLiteral('1.0')),
  fc.constant('7'),
  fc.constant(null),
);
const record = fc.record(
  {
    id: idValue,
    name: fc.oneof(text, fc.constant(3)),
    tag: fc.oneof(text, fc.constant(undefined), fc.constant(false)),
    extra: fc.constant(1),
  },
  { requiredKeys: [] },
);

function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('toNewPlant without zod for the common record', () => {
  it('gives what the schema gives, or the same error, for any record', () => {
    fc.assert(
      fc.property(record, (value) => {
        const viaSchema = NewPlant.safeParse(value);
        const fast = outcome(() => toNewPlant(value)) as { value?: NewPlant };
        if (viaSchema.success) {
          expect(fast.value).toStrictEqual(viaSchema.data);
          expect(Object.keys(fast.value as object)).toEqual(Object.keys(viaSchema.data));
        } else {
          expect(fast.value).toBeUndefined();
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('returns a new object, never the one given', () => {
    const given = { id: 1n, name: 'Fern' };
    expect(toNewPlant(given)).not.toBe(given);
  });
});

describe('newPlantJson', () => {
  it('writes exactly what stringifyJsonExact writes, for any NewPlant', () => {
    const plant = fc.record(
      {
        id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        name: fc.string({ minLength: 1 }),
        tag: fc.string(),
      },
      { requiredKeys: ['id', 'name'] },
    );
    fc.assert(
      fc.property(plant, (value) => {
        expect(newPlantJson(value)).toBe(stringifyJsonExact(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to stringifyJsonExact for an object of another shape', () => {
    const reordered = { name: 'Fern', id: 5n } as NewPlant;
    expect(newPlantJson(reordered)).toBe('{"name":"Fern","id":5}');
    expect(newPlantJson({ id: 9223372036854775807n, name: 'Oak', tag: 'tree' })).toBe(
      '{"id":9223372036854775807,"name":"Oak","tag":"tree"}',
    );
  });
});
