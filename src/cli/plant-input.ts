import { InvalidInputError } from '../errors.js';
import { parseJsonExact } from '../schema/exact-json.js';
import { type NewPlant, parsePlantIdText, toNewPlant } from '../schema/plant.js';
import { readInputText } from './read-input.js';

/** The flags of `plants add` that make up a NewPlant. */
export interface PlantFlags {
  id?: string | undefined;
  name?: string | undefined;
  tag?: string | undefined;
  /** A JSON file holding a NewPlant, or `-` for stdin. */
  file?: string | undefined;
}

/**
 * The NewPlant that `plants add` sends: the object in --file (if any) with --id, --name and
 * --tag laid over it, checked by the shared schema. Throws exit-2 errors that name the field.
 */
export async function readNewPlant(flags: PlantFlags, stdin: NodeJS.ReadableStream): Promise<NewPlant> {
  let base: Record<string, unknown> = {};
  if (flags.file !== undefined) {
    const source = flags.file === '-' ? 'stdin' : flags.file;
    const text = await readInputText(flags.file, stdin);
    let value: unknown;
    try {
      value = parseJsonExact(text);
    } catch (error) {
      throw new InvalidInputError(`${source} is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InvalidInputError(`${source} must hold one JSON object: a NewPlant with id, name and optional tag`);
    }
    base = value as Record<string, unknown>;
  } else if (flags.id === undefined || flags.name === undefined) {
    const missing = [flags.id === undefined ? '--id' : undefined, flags.name === undefined ? '--name' : undefined];
    throw new InvalidInputError(`missing ${missing.filter(Boolean).join(' and ')}`, {
      hints: ['Give --id and --name (and optionally --tag), or --file with a NewPlant as JSON.'],
    });
  }
  const merged: Record<string, unknown> = { ...base };
  if (flags.id !== undefined) merged.id = parsePlantIdText(flags.id);
  if (flags.name !== undefined) merged.name = flags.name;
  if (flags.tag !== undefined) merged.tag = flags.tag;
  return toNewPlant(merged);
}
