import * as z from 'zod/mini';
import { parseJsonExact, stringifyJsonExact } from './exact-json.js';
import { describeNonInt64, INT32_MAX, INT32_MIN, INT64_TEXT_MESSAGE, toInt64 } from './int64.js';
import { InvalidPlantError } from './invalid-plant-error.js';

export { OUTCOME_UNKNOWN } from './outcome.js';

// zod's functional build (zod/mini): the same schemas and parser as its classic API, without the
// methods classic attaches to every schema it builds, which were most of what loading this module
// cost a one-record `plants add` (bench j). Without its compiled fast path for objects either
// (jitless): building that (new Function) on the first parse cost a one-record add more than it
// saves, and these schemas' refinements parse no faster with it (docs/binary.md).
z.config({ jitless: true });

/** Longest name or tag the store accepts, in UTF-16 code units. */
export const MAX_TEXT_LENGTH = 1024;

function text(options: { nonEmpty: boolean }) {
  return z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }).check(
    z.refine((value) => !options.nonEmpty || value.length > 0, { message: 'must not be empty' }),
    z.refine((value) => value.length <= MAX_TEXT_LENGTH, {
      message: `must be at most ${MAX_TEXT_LENGTH} characters`,
    }),
    z.refine((value) => value.isWellFormed(), { message: 'must be valid Unicode (no lone surrogates)' }),
  );
}

/** An int64 id, exact: a bigint, never a rounded JS number. */
export const PlantId = z.pipe(
  z.unknown(),
  z.transform((value, ctx): bigint => {
    const id = toInt64(value);
    if (id === undefined) {
      ctx.issues.push({ code: 'custom', message: describeNonInt64(value), input: value });
      return z.NEVER;
    }
    return id;
  }),
);
export type PlantId = z.output<typeof PlantId>;

/** The Plant of the interface: what the store answers with. `id` is ours (the seed leaves it out). */
export const Plant = z.object({
  id: z.optional(PlantId),
  name: text({ nonEmpty: false }),
  tag: z.optional(text({ nonEmpty: false })),
});
export type Plant = z.output<typeof Plant>;

// The schemas below Plant are built on first use (z.lazy): a one-record add parses only a Plant.

/** A plant as `plants serve` lists and returns it: the Plant with its id. */
export const StoredPlant = z.lazy(() => z.extend(Plant, { id: PlantId }));
export type StoredPlant = z.output<typeof StoredPlant>;

/** A page of plants, as GET /plants answers it. */
export const StoredPlants = z.lazy(() => z.array(StoredPlant));

/** The request body of POST /plants. Unknown fields are dropped. */
export const NewPlant = z.lazy(() =>
  z.object({
    id: PlantId,
    name: text({ nonEmpty: true }),
    tag: z.optional(text({ nonEmpty: false })),
  }),
);
export type NewPlant = z.output<typeof NewPlant>;

function errorBody() {
  return z.object({
    error: z
      .int({ error: 'must be an integer' })
      .check(
        z.gte(INT32_MIN, { error: `must be at least ${INT32_MIN}` }),
        z.lte(INT32_MAX, { error: `must be at most ${INT32_MAX}` }),
      ),
    message: z.string({ error: 'must be a string' }),
    // Any string is taken (a later server may say more); only OUTCOME_UNKNOWN means anything here.
    outcome: z.optional(z.string({ error: 'must be a string' })),
  });
}

/**
 * The Error record of the interface (`error`, `message`), with `plants serve`'s optional
 * `outcome` (OUTCOME_UNKNOWN), which a client of the interface alone may ignore.
 */
export const ErrorBody = z.lazy(errorBody);
export type ErrorBody = z.output<typeof ErrorBody>;

/** The 409 of `plants serve`: the Error record and the plant stored under that id (OpenAPI: Conflict). */
export const ConflictBody = z.lazy(() => z.extend(errorBody(), { plant: StoredPlant }));

/**
 * The stored plant a 409's body carries, exact, with its JSON as the server wrote it (one line);
 * undefined when the body has none (a store with only the seed's POST answers the Error record alone).
 */
export function storedPlantOfConflict(
  rawBody: string | undefined,
): { plant: StoredPlant; rawBody: string } | undefined {
  // Most 409 bodies of a seed store are short Error records: no parse for those.
  if (rawBody === undefined || !rawBody.includes('"plant"')) return undefined;
  let value: unknown;
  try {
    value = parseJsonExact(rawBody);
  } catch {
    return undefined;
  }
  const body = ConflictBody.safeParse(value);
  if (!body.success) return undefined;
  return { plant: body.data.plant, rawBody: stringifyJsonExact((value as { plant: unknown }).plant) };
}

/** Validates a NewPlant from parsed JSON (exact) or built from flags; throws InvalidPlantError. */
export function toNewPlant(value: unknown): NewPlant {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPlantError('a NewPlant must be a JSON object with id, name and optional tag');
  }
  const plain = plainNewPlant(value as Record<string, unknown>);
  if (plain !== undefined) return plain;
  const result = NewPlant.safeParse(value);
  if (!result.success) {
    const { issues } = result.error;
    const paths = issues.map((issue) => issue.path.map(String).join('.'));
    // `id: must be …; name: is required`: one line, each field named, for a terminal or a 400.
    const words = issues.map((issue, at) => (paths[at] === '' ? issue.message : `${paths[at]}: ${issue.message}`));
    throw new InvalidPlantError(`invalid plant: ${words.join('; ')}`, { fields: [...new Set(paths)] });
  }
  return result.data;
}

/**
 * The NewPlant the schema gives for the common record (an id, a name, perhaps a tag, nothing
 * else, each valid), checked without zod: the same conditions as NewPlant, the same output (a
 * new object, keys in the schema's order). Anything else is undefined, for the schema to decide
 * and word its errors. A bulk add checks every record: zod's general machinery was a measurable
 * share of its CPU.
 */
function plainNewPlant(value: Record<string, unknown>): NewPlant | undefined {
  const hasTag = Object.hasOwn(value, 'tag');
  if (!Object.hasOwn(value, 'id') || !Object.hasOwn(value, 'name')) return undefined;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  if (keys !== (hasTag ? 3 : 2)) return undefined;
  const id = toInt64(value.id);
  const { name, tag } = value;
  if (id === undefined || !validText(name) || name.length === 0) return undefined;
  if (!hasTag) return { id, name };
  return validText(tag) ? { id, name, tag } : undefined;
}

const validText = (text: unknown): text is string =>
  typeof text === 'string' && text.length <= MAX_TEXT_LENGTH && text.isWellFormed();

/**
 * The JSON text of a NewPlant, exactly as stringifyJsonExact writes it (the id digit for digit),
 * without walking it generically when it has the schema's shape.
 */
export function newPlantJson(plant: NewPlant): string {
  const { id, name, tag } = plant;
  const keys = Object.keys(plant);
  const shaped =
    typeof id === 'bigint' &&
    typeof name === 'string' &&
    keys[0] === 'id' &&
    keys[1] === 'name' &&
    (keys.length === 2 || (keys.length === 3 && keys[2] === 'tag' && typeof tag === 'string'));
  if (!shaped) return stringifyJsonExact(plant);
  const text = `{"id":${id},"name":${JSON.stringify(name)}`;
  return keys.length === 2 ? `${text}}` : `${text},"tag":${JSON.stringify(tag)}}`;
}

/** Parses JSON text into a NewPlant, keeping every digit of the id. */
export function parseNewPlantJson(text: string): NewPlant {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new InvalidPlantError(`not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return toNewPlant(value);
}

/** Reads an id typed by a user (a flag, a URL path segment). */
export function parsePlantIdText(text: string): bigint {
  const id = toInt64(text, { fromText: true });
  if (id === undefined) {
    throw new InvalidPlantError(`invalid id: ${INT64_TEXT_MESSAGE} (got ${JSON.stringify(text.slice(0, 40))})`, {
      fields: ['id'],
    });
  }
  return id;
}
