import * as z from 'zod/mini';
import { parseJsonExact, stringifyJsonExact } from './exact-json.js';
import { describeNonInt64, INT32_MAX, INT32_MIN, INT64_TEXT_MESSAGE, toInt64 } from './int64.js';
import { InvalidPlantError } from './invalid-plant-error.js';

export { OUTCOME_UNKNOWN } from './outcome.js';

// zod/mini: classic's methods on every schema were most of this module's load cost for a one-record
// `plants add` (bench j). Jitless: compiling the object fast path on the first parse cost that add more
// than it saves (docs/binary.md).
z.config({ jitless: true });

/** In UTF-16 code units. */
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

/** A bigint, never a rounded JS number. */
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

/** What the store answers with. `id` is ours (the seed leaves it out). */
export const Plant = z.object({
  id: z.optional(PlantId),
  name: text({ nonEmpty: false }),
  tag: z.optional(text({ nonEmpty: false })),
});
export type Plant = z.output<typeof Plant>;

// The schemas below Plant are built on first use (z.lazy): a one-record add parses only a Plant.

export const StoredPlant = z.lazy(() => z.extend(Plant, { id: PlantId }));
export type StoredPlant = z.output<typeof StoredPlant>;

export const StoredPlants = z.lazy(() => z.array(StoredPlant));

/** Unknown fields are dropped. */
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

/** The interface's Error record, with `plants serve`'s optional `outcome` (OUTCOME_UNKNOWN). */
export const ErrorBody = z.lazy(errorBody);
export type ErrorBody = z.output<typeof ErrorBody>;

/** The 409 of `plants serve`: the Error record and the plant stored under that id (OpenAPI: Conflict). */
export const ConflictBody = z.lazy(() => z.extend(errorBody(), { plant: StoredPlant }));

/** The stored plant a 409 of `plants serve` carries, with its JSON as the server wrote it (one line). */
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

/** From parsed JSON (exact) or flags; throws InvalidPlantError. */
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
 * The common record checked without zod, whose machinery was a measurable share of a bulk add's CPU:
 * the same conditions and output as NewPlant; anything else is undefined, for the schema to word.
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

/** Exactly as stringifyJsonExact writes it, without its generic walk when the plant has the schema's shape. */
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

export function parseNewPlantJson(text: string): NewPlant {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    throw new InvalidPlantError(`not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return toNewPlant(value);
}

/** An id typed by a user (a flag, a URL path segment). */
export function parsePlantIdText(text: string): bigint {
  const id = toInt64(text, { fromText: true });
  if (id === undefined) {
    throw new InvalidPlantError(`invalid id: ${INT64_TEXT_MESSAGE} (got ${JSON.stringify(text.slice(0, 40))})`, {
      fields: ['id'],
    });
  }
  return id;
}
