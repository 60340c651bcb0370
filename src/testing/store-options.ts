import { randomBytes } from 'node:crypto';
import { PlantsError } from '../errors.js';
import { InvalidPlantError } from '../schema/invalid-plant-error.js';
import { type NewPlant, toNewPlant } from '../schema/plant.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import { isDatabaseServer } from '../server/stores/open-store.js';
import type { Seed } from '../server/test-double/seed.js';
import { type ControlsUpdate, parseControlsUpdate } from '../server/test-double/test-controls.js';
import type { Delay, Fault, StoreControlsUpdate, StoreOptions } from './store-types.js';

export interface CheckedStoreOptions {
  token: string;
  database: string;
  seed: Seed | undefined;
  controls: { delay?: Delay; faults?: Fault[]; faultSeed?: number };
  allowReset: boolean;
}

const NAMES = ['token', 'seed', 'db', 'database', 'delay', 'faults', 'faultSeed', 'allowReset'] as const;
NAMES satisfies ReadonlyArray<keyof StoreOptions>;

const bad = (message: string, cause?: unknown) =>
  new TypeError(`startStore: ${message}`, cause === undefined ? undefined : { cause });

/** Checks every option and reads a seed file before anything listens: the first bad one is a TypeError. */
export async function checkStoreOptions(options: StoreOptions | undefined): Promise<CheckedStoreOptions> {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw bad('the options must be an object');
  }
  const unknown = Object.keys(options).find((name) => !(NAMES as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw bad(`unknown option ${JSON.stringify(unknown)}; the options are ${NAMES.join(', ')}`);
  }
  const { token = randomBytes(24).toString('base64url'), allowReset = false } = options;
  if (typeof token !== 'string' || !isBearerToken(token)) {
    throw bad(`token must be a bearer token: ${typeof token === 'string' ? describeBadToken(token) : typeof token}`);
  }
  if (typeof allowReset !== 'boolean') throw bad('allowReset must be true or false');
  return {
    token,
    database: checkDatabase(options),
    seed: await checkSeed(options.seed),
    controls: checkInitialControls(options),
    allowReset,
  };
}

/** setControls' update, checked with PUT /_serve/controls' schema: a TypeError naming the field. */
export function checkControls(update: StoreControlsUpdate, what = 'setControls: '): ControlsUpdate {
  if (typeof update !== 'object' || update === null) throw bad(`${what}the update must be an object`);
  const { delay, faults, faultSeed, ...rest } = update;
  const given = {
    ...rest,
    ...(delay === undefined ? {} : { delay: typeof delay === 'number' ? { minMs: delay, maxMs: delay } : delay }),
    ...(faults === undefined ? {} : { faults }),
    ...(faultSeed === undefined ? {} : { faultSeed }),
  };
  const parsed = parseControlsUpdate(given);
  if ('issue' in parsed) throw bad(`${what}${parsed.issue}`);
  return parsed.update;
}

function checkInitialControls(options: StoreOptions): CheckedStoreOptions['controls'] {
  if (options.delay === null) throw bad('delay must be milliseconds or {minMs, maxMs}');
  const { delay, faults, faultSeed } = checkControls(
    { delay: options.delay, faults: options.faults, faultSeed: options.faultSeed },
    '',
  );
  return { delay: delay ?? undefined, faults, faultSeed };
}

function checkDatabase(options: StoreOptions): string {
  const { db, database } = options;
  if (db !== undefined && database !== undefined) throw bad('give db or database, not both');
  if (db !== undefined) {
    if (typeof db !== 'string' || db === '') throw bad('db must be the path of a SQLite file');
    return db;
  }
  if (database === undefined) return ':memory:';
  if (typeof database !== 'string' || !(isDatabaseServer(database) || database.startsWith('file:'))) {
    throw bad('database must be a postgres://, postgresql:// or file: URL (a plain path is db)');
  }
  return database;
}

async function checkSeed(seed: StoreOptions['seed']): Promise<Seed | undefined> {
  if (seed === undefined) return undefined;
  if (typeof seed === 'string') {
    const { readSeedFile } = await import('../server/test-double/seed.js');
    try {
      return await readSeedFile(seed);
    } catch (error) {
      // Its messages name the file as serve's flag does: `--seed FILE: line 3: …`.
      if (error instanceof PlantsError) throw bad(`seed ${error.message.replace(/^--seed /, '')}`, error);
      throw error;
    }
  }
  if (!Array.isArray(seed)) throw bad('seed must be an array of plants or the path of a seed file');
  const plants: NewPlant[] = [];
  const where: string[] = [];
  const byId = new Map<bigint, NewPlant>();
  seed.forEach((value: unknown, index) => {
    let plant: NewPlant;
    try {
      plant = toNewPlant(value);
    } catch (error) {
      if (error instanceof InvalidPlantError) throw bad(`seed[${index}]: ${error.message}`, error);
      throw error;
    }
    const earlier = byId.get(plant.id);
    if (earlier === undefined) {
      byId.set(plant.id, plant);
      plants.push(plant);
      where.push(`seed[${index}]`);
    } else if (earlier.name !== plant.name || earlier.tag !== plant.tag) {
      throw bad(`seed[${index}]: id ${plant.id} is given earlier with other fields`);
    }
  });
  return { source: 'startStore', plants, where };
}
