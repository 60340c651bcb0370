import { open } from 'node:fs/promises';
import type { InputRecord, JsonRecordReader } from '../../bulk/json-records.js';
import { InvalidInputError } from '../../errors.js';
import { InvalidPlantError, type NewPlant, parsePlantIdText, toNewPlant } from '../../schema/plant.js';
import { whyUnreadable } from './unreadable-file.js';

/** The flags of `plants add` that make up a NewPlant. */
export interface PlantFlags {
  id?: string | undefined;
  name?: string | undefined;
  tag?: string | undefined;
  /** A JSON file holding a NewPlant, an array of them or NDJSON; `-` for stdin. */
  file?: string | undefined;
}

/** What `plants add` was given: one plant (from flags or a one-record file), or many records to stream. */
export type PlantInput =
  | { kind: 'single'; plant: NewPlant }
  | { kind: 'bulk'; records: AsyncIterable<InputRecord>; toPlant: (value: unknown) => NewPlant };

/**
 * The NewPlant of `plants add` from --id/--name/--tag: the object given, with the flags laid
 * over it, checked by the shared schema. Throws InvalidPlantError naming the fields.
 */
export function applyPlantFlags(value: unknown, flags: PlantFlags): NewPlant {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPlantError('a record must be a JSON object: a NewPlant with id, name and optional tag');
  }
  const merged: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (flags.id !== undefined) merged.id = parsePlantIdText(flags.id);
  if (flags.name !== undefined) merged.name = flags.name;
  if (flags.tag !== undefined) merged.tag = flags.tag;
  return toNewPlant(merged);
}

/**
 * Reads what `plants add` is to send. Without --file: the flags. With --file: one NewPlant
 * object (flags override its fields), or a JSON array or NDJSON of them, streamed (--name and
 * --tag then apply to every record; --id cannot). Unreadable input is exit 2.
 */
export async function readPlantInput(flags: PlantFlags, stdin: NodeJS.ReadableStream): Promise<PlantInput> {
  if (flags.file === undefined) {
    if (flags.id === undefined || flags.name === undefined) {
      const missing = [flags.id === undefined ? '--id' : undefined, flags.name === undefined ? '--name' : undefined];
      throw new InvalidInputError(`missing ${missing.filter(Boolean).join(' and ')}`, {
        hints: ['Give --id and --name (and optionally --tag), or --file with a NewPlant as JSON.'],
      });
    }
    return { kind: 'single', plant: applyPlantFlags({}, flags) };
  }
  const source = flags.file === '-' ? 'stdin' : flags.file;
  const { JsonRecordReader } = await import('../../bulk/json-records.js');
  const reader: JsonRecordReader = new JsonRecordReader(await openText(flags.file, stdin));
  const records = reader.records();
  const first = await records.next();
  if (first.done) throw new InvalidInputError(`${source} is empty: expected a NewPlant as JSON, an array or NDJSON`);
  const second = reader.shape === 'array' ? undefined : await records.next();
  if (second?.done === true) {
    if ('error' in first.value) throw new InvalidInputError(`${source} is ${first.value.error}`);
    try {
      return { kind: 'single', plant: applyPlantFlags(first.value.value, flags) };
    } catch (error) {
      if (error instanceof InvalidPlantError && error.fields.length === 0) {
        throw new InvalidInputError(`${source} must hold a JSON object, an array of them, or NDJSON`);
      }
      throw error;
    }
  }
  if (flags.id !== undefined) {
    throw new InvalidInputError(`--id cannot apply to every record of ${source}: it holds more than one plant`);
  }
  async function* all(): AsyncGenerator<InputRecord> {
    yield first.value as InputRecord;
    if (second !== undefined && second.done !== true) yield second.value;
    yield* records;
  }
  return { kind: 'bulk', records: all(), toPlant: (value) => applyPlantFlags(value, flags) };
}

/** The text of --file PATH (or stdin for `-`), as a stream of strings. */
async function openText(file: string, stdin: NodeJS.ReadableStream): Promise<AsyncIterable<string>> {
  if (file === '-') {
    stdin.setEncoding('utf8');
    return stdin as AsyncIterable<string>;
  }
  // Open first, so that a missing or unreadable file is reported before anything else happens.
  try {
    const handle = await open(file, 'r');
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    }
    return handle.createReadStream({ encoding: 'utf8', highWaterMark: 256 * 1024 });
  } catch (error) {
    const why = whyUnreadable(error);
    throw new InvalidInputError(`cannot read ${file}: ${why}`, { cause: error });
  }
}
