import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import type { RecordSource } from '../../bulk/bulk-add.js';
import { InvalidInputError } from '../../errors.js';
import type { InputRecord, JsonRecordReader } from '../../records/json-records.js';
import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { type NewPlant, parsePlantIdText, toNewPlant } from '../../schema/plant.js';

export interface PlantFlags {
  id?: string | undefined;
  name?: string | undefined;
  tag?: string | undefined;
  file?: string | undefined;
}

export type PlantInput =
  | { kind: 'single'; plant: NewPlant }
  | { kind: 'bulk'; records: RecordSource; toPlant: (value: unknown) => NewPlant };

/** The object given with --id/--name/--tag laid over it, checked by the shared schema. */
function applyPlantFlags(value: unknown, flags: PlantFlags): NewPlant {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPlantError('a record must be a JSON object: a NewPlant with id, name and optional tag');
  }
  const merged: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (flags.id !== undefined) merged.id = parsePlantIdText(flags.id);
  if (flags.name !== undefined) merged.name = textFlag('--name', flags.name);
  if (flags.tag !== undefined) merged.tag = textFlag('--tag', flags.tag);
  return toNewPlant(merged);
}

let rawArguments: Buffer[] | undefined;

/**
 * Node decodes argv with U+FFFD for bytes that are not UTF-8: a value holding U+FFFD is checked
 * against /proc/self/cmdline and refused rather than stored changed.
 */
function textFlag(flag: string, value: string): string {
  if (!value.includes('\uFFFD')) return value;
  if (rawArguments === undefined) {
    try {
      // latin1 keeps every byte as it is.
      rawArguments = readFileSync('/proc/self/cmdline', 'latin1')
        .split('\0')
        .map((arg) => Buffer.from(arg, 'latin1'));
    } catch {
      rawArguments = [];
    }
  }
  const suspect = rawArguments.filter((raw) => !isUtf8(raw)).map((raw) => raw.toString('utf8'));
  if (suspect.some((arg) => arg === value || arg === `${flag}=${value}` || arg.endsWith(`=${value}`))) {
    throw new InvalidInputError(`${flag} is not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)`, {
      hints: ['Give it as UTF-8 (`iconv -f latin1 -t utf-8` converts Latin-1).'],
    });
  }
  return value;
}

/**
 * What `plants add` is to send: the flags, or with --file one NewPlant (flags override its
 * fields) or records, streamed (--name and --tag apply to each; --id only to one record).
 */
export async function readPlantInput(
  flags: PlantFlags,
  /** A plant from the flags never makes stdin. */
  stdin: () => NodeJS.ReadableStream,
  notice: (line: string) => void = () => {},
  /** `add --dry-run`: even one plant is a record. */
  asRecords = false,
): Promise<PlantInput> {
  const toPlant = (value: unknown) => applyPlantFlags(value, flags);
  if (flags.file === undefined) {
    if (flags.id === undefined || flags.name === undefined) {
      const missing = [flags.id === undefined ? '--id' : undefined, flags.name === undefined ? '--name' : undefined];
      throw new InvalidInputError(`missing ${missing.filter(Boolean).join(' and ')}`, {
        hints: ['Give --id and --name (and optionally --tag), or --file with a NewPlant as JSON.'],
      });
    }
    if (asRecords) return { kind: 'bulk', records: recordsOf({ line: 1, value: {} }), toPlant };
    return { kind: 'single', plant: applyPlantFlags({}, flags) };
  }
  // Before reading anything: a flag that is not UTF-8 is refused whatever the input holds.
  if (flags.name !== undefined) textFlag('--name', flags.name);
  if (flags.tag !== undefined) textFlag('--tag', flags.tag);
  const source = flags.file === '-' ? 'stdin' : flags.file;
  if (flags.file === '-' && (stdin() as NodeJS.ReadStream).isTTY === true) {
    notice(
      'plants: reading plants from stdin (this terminal): type or paste JSON (one NewPlant, an array, or one per line), then press Ctrl-D on a line of its own to end.',
    );
  }
  const { openRecords } = await import('../../records/open-records.js');
  const { TOO_LONG } = await import('../../records/json-records.js');
  const reader: JsonRecordReader = await openRecords(flags.file, stdin);
  const records = reader.records();
  const first = await records.next();
  if (first.done) return { kind: 'bulk', records: recordsOf(), toPlant };
  // A first record too long to be one: the input is not what it should be (a binary file, /dev/zero).
  if ('error' in first.value && first.value.error === TOO_LONG) {
    throw new InvalidInputError(
      `${source} is ${TOO_LONG.replace(':', ` at line ${first.value.line}:`)}; nothing was sent`,
    );
  }
  const second = await records.next();
  if (second.done === true && reader.shape !== 'array' && !asRecords) {
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
  if (flags.id !== undefined && second.done !== true) {
    throw new InvalidInputError(`--id cannot apply to every record of ${source}: it holds more than one plant`);
  }
  let handedOn = false;
  async function* all(): AsyncGenerator<InputRecord> {
    yield first.value as InputRecord;
    if (second.done !== true) yield second.value;
    handedOn = true;
    yield* records;
  }
  const rest: RecordSource = {
    [Symbol.asyncIterator]: all,
    takeBuffered: () => (handedOn ? reader.takeBuffered() : undefined),
  };
  return { kind: 'bulk', records: rest, toPlant };
}

async function* recordsOf(...records: InputRecord[]): AsyncGenerator<InputRecord> {
  yield* records;
}
