import { open } from 'node:fs/promises';
import { ExitCode, InvalidInputError, PlantsError } from '../../errors.js';
import { whyUnreadable } from '../../files/unreadable-file.js';
import { JsonRecordReader } from '../../records/json-records.js';
import { stringifyJsonExact } from '../../schema/exact-json.js';
import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { type NewPlant, toNewPlant } from '../../schema/plant.js';
import { toWire } from '../routes/plants.js';
import type { PlantStore } from '../stores/plant-store.js';

export interface Seed {
  /** `--seed plants.ndjson`, or `startStore` (whose `where` say `seed[2]`). */
  source: string;
  plants: NewPlant[];
  /** `line 4 (array index 2)`: where plants[i] is. */
  where: string[];
}

/** With `plants add --file`'s reader. An id given twice alike is kept once. */
export async function readSeedFile(file: string): Promise<Seed> {
  const fail = (why: string, cause?: unknown) => new InvalidInputError(`--seed ${file}: ${why}`, { cause });
  let text: AsyncIterable<string>;
  try {
    const handle = await open(file, 'r');
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    }
    text = handle.createReadStream({ encoding: 'utf8', highWaterMark: 256 * 1024 });
  } catch (error) {
    throw fail(`cannot read it: ${whyUnreadable(error)}`, error);
  }
  const reader = new JsonRecordReader(text);
  const seed: Seed = { source: `--seed ${file}`, plants: [], where: [] };
  const byId = new Map<bigint, number>();
  let index = 0;
  try {
    for await (const record of reader.records()) {
      const where = reader.shape === 'array' ? `line ${record.line} (array index ${index})` : `line ${record.line}`;
      index += 1;
      if ('error' in record) throw fail(`${where}: ${record.error}`);
      let plant: NewPlant;
      try {
        plant = toNewPlant(record.value);
      } catch (error) {
        if (error instanceof InvalidPlantError) throw fail(`${where}: ${error.message}`, error);
        throw error;
      }
      const earlier = byId.get(plant.id);
      if (earlier !== undefined) {
        if (samePlant(seed.plants[earlier] as NewPlant, plant)) continue;
        throw fail(`${where}: id ${plant.id} is also at ${seed.where[earlier]}, with other fields`);
      }
      byId.set(plant.id, seed.plants.length);
      seed.plants.push(plant);
      seed.where.push(where);
    }
  } catch (error) {
    if (error instanceof PlantsError) throw error;
    // The file could be opened but not read through (an I/O error, not UTF-8 at all).
    throw fail(`cannot read it: ${whyUnreadable(error)}`, error);
  }
  return seed;
}

export class SeedConflictError extends PlantsError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.usage });
  }
}

/** Into a store that may hold plants already: one stored alike is fine; with other fields, nothing is added. */
export async function applySeed(store: Pick<PlantStore, 'get' | 'add'>, seed: Seed): Promise<void> {
  const stored = await mapInBatches(seed.plants, (plant) => store.get(plant.id));
  checkConflicts(seed, stored, 'nothing was added');
  const missing = seed.plants.flatMap((plant, at) => (stored[at] === undefined ? [{ plant, at }] : []));
  const results = await Promise.all(missing.map(({ plant }) => store.add(plant)));
  // Not added: another instance stored the id meanwhile. Alike is fine, as above.
  const raced = missing.filter((_, at) => results[at]?.added !== true);
  if (raced.length === 0) return;
  const now = await mapInBatches(raced, ({ plant }) => store.get(plant.id));
  const view: Array<NewPlant | undefined> = seed.plants.map(() => undefined);
  raced.forEach(({ at }, index) => {
    view[at] = now[index];
  });
  checkConflicts(seed, view, 'the other seed plants were added');
}

function checkConflicts(seed: Seed, stored: ReadonlyArray<NewPlant | undefined>, outcome: string): void {
  const conflicts: number[] = [];
  stored.forEach((plant, at) => {
    if (plant !== undefined && !samePlant(plant, seed.plants[at] as NewPlant)) conflicts.push(at);
  });
  const first = conflicts[0];
  if (first === undefined) return;
  const others = conflicts.length - 1;
  const plant = seed.plants[first] as NewPlant;
  throw new SeedConflictError(
    `${seed.source}: ${seed.where[first]}: plant ${plant.id} is stored already as ${brief(stored[first] as NewPlant)}, the seed has ${brief(plant)}${others > 0 ? ` (and ${others} more ${others === 1 ? 'id differs' : 'ids differ'})` : ''}; ${outcome}`,
  );
}

function samePlant(a: NewPlant, b: NewPlant): boolean {
  return a.id === b.id && a.name === b.name && a.tag === b.tag;
}

function brief(plant: NewPlant): string {
  const json = stringifyJsonExact(toWire(plant));
  return json.length > 80 ? `${json.slice(0, 77)}…` : json;
}

/** `map` with at most 64 calls in flight: a pool of connections, not one each. */
async function mapInBatches<T, R>(items: readonly T[], call: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += 64) {
    results.push(...(await Promise.all(items.slice(start, start + 64).map(call))));
  }
  return results;
}
