import { stringifyJsonExact } from '../schema/exact-json.js';
import { type NewPlant, type StoredPlant, storedPlantOfConflict } from '../schema/plant.js';
import { AuthRejectedError, ConflictError, NoAnswerError, ResponseError, UnreachableError } from './errors.js';
import type { AddedPlant, PlantClient } from './plant-client.js';
import type { RetryPolicy } from './retry-policy.js';

/** A plant the store holds exactly as sent, as GET /plants/{id} gave it. */
export interface ReadBackPlant {
  plant: StoredPlant;
  rawBody: string;
  attempts: number;
}

/**
 * `confirmed`: a 409 after the first attempt, or an attempt that may have been applied, and the store
 * holds the plant exactly as sent (most likely our own doing); `existing`: the same for a first 409.
 */
export type AddSettled =
  | { kind: 'added'; added: AddedPlant }
  | ({ kind: 'confirmed' } & ReadBackPlant)
  | ({ kind: 'existing' } & ReadBackPlant);

export interface ConfirmingAdderOptions {
  client: PlantClient;
  /** Of the adds and the read-backs. */
  retry: RetryPolicy;
  /** Read back on every 409, not only on one met after a retry. */
  skipExisting: boolean;
  /** Told once, the first time the store turns out to have no GET /plants/{id}. */
  onNoReadBack?: (message: string) => void;
}

/** `no-get`: the store has no GET for plants. */
type ReadBack = { plant: StoredPlant; rawBody: string } | 'absent' | 'no-get' | 'failed';

/** GET /plants/{id}: the plant, the status of the error (not a refused token) it met, or `failed`. */
async function readPlant(
  client: PlantClient,
  id: bigint,
  retry?: RetryPolicy,
): Promise<{ plant: StoredPlant; rawBody: string } | number | 'failed'> {
  try {
    return await client.getPlant(id, { retry });
  } catch (error) {
    if (error instanceof ResponseError && !(error instanceof AuthRejectedError)) return error.status;
    if (error instanceof ResponseError || error instanceof UnreachableError) return 'failed';
    throw error;
  }
}

interface Tries {
  /** Sent again after a read-back found it absent: it is not sent a third time. */
  resent: boolean;
  earlierAttempts: number;
  /** An earlier try may have been applied: in doubt until a read-back settles it. */
  maybeApplied: boolean;
}

const FIRST_TRY: Tries = { resent: false, earlierAttempts: 0, maybeApplied: false };

function mayHaveBeenApplied(error: ResponseError | UnreachableError): boolean {
  return error instanceof ResponseError ? error.mayHaveBeenApplied : error.sentNoAnswer;
}

export const NO_READ_BACK_MESSAGE =
  'the store does not answer GET /plants/{id}, so a 409 cannot be checked against what was sent: it is reported as the server answered it';

/**
 * Adds plants so that a run can be repeated, and an add that may have been applied is never taken
 * for a failure: a 409 after the first attempt (with skipExisting, any 409) is settled by the stored
 * plant it carries, else by reading it back; an add that may have been applied, by reading it back.
 * Stored exactly as sent: ours; with other data: ConflictError; not there: sent once more; a store
 * with no GET for plants keeps the server's 409 (and says so once).
 */
export class ConfirmingAdder {
  readonly #options: ConfirmingAdderOptions;
  /** A read-back met 405, or 404 for an id the store had just answered 409 for. */
  #noGet = false;

  constructor(options: ConfirmingAdderOptions) {
    this.#options = options;
  }

  add(plant: NewPlant, state = FIRST_TRY): Promise<AddSettled> {
    // Every record of a bulk add comes here: one promise more than the POST itself.
    return this.#options.client.addPlant(plant, { retry: this.#options.retry }).then(
      (added): AddSettled => {
        added.attempts += state.earlierAttempts;
        return { kind: 'added', added };
      },
      (error: unknown) => this.settle(plant, error, state),
    );
  }

  /** What `client.addPlant(plant, { retry })` rejected with, settled as `add` would: for a caller that sent first. */
  async settle(plant: NewPlant, error: unknown, state: Tries = FIRST_TRY): Promise<AddSettled> {
    if (!(error instanceof ResponseError || error instanceof UnreachableError)) throw error;
    error.attempts += state.earlierAttempts;
    if (error instanceof ResponseError && !(error instanceof AuthRejectedError) && error.status === 409) {
      // After any earlier attempt, however answered (a 503 sent while the database committed it), a
      // 409 may be its doing.
      const afterRetry = error.afterRetry || state.resent || error.attempts > 1;
      if (!afterRetry && !this.#options.skipExisting) throw error;
      return this.#settleConflict(plant, error, afterRetry);
    }
    if (state.maybeApplied || mayHaveBeenApplied(error)) return this.#settleInDoubt(plant, error, state);
    throw error;
  }

  async #settleConflict(plant: NewPlant, conflict: ResponseError, afterRetry: boolean): Promise<AddSettled> {
    // `plants serve`'s 409 carries the stored plant: a re-run costs one request per record, not two.
    const carried = storedPlantOfConflict(conflict.rawBody);
    const read =
      carried !== undefined && carried.plant.id === plant.id ? carried : await this.#readBack(plant.id, true);
    if (typeof read === 'object') {
      const stored = { plant: read.plant, rawBody: read.rawBody, attempts: conflict.attempts };
      if (sameNewPlant(plant, read.plant)) return { kind: afterRetry ? 'confirmed' : 'existing', ...stored };
      throw differs(plant, read.rawBody, conflict.body.message, conflict.attempts, 'the server answered 409: ');
    }
    if (read === 'failed' && afterRetry) {
      throw new NoAnswerError(plant.id, conflict, { storeArgs: this.#options.client.storeArgs });
    }
    throw conflict;
  }

  async #settleInDoubt(plant: NewPlant, error: ResponseError | UnreachableError, state: Tries): Promise<AddSettled> {
    const read = await this.#readBack(plant.id, false);
    if (typeof read === 'object') {
      if (sameNewPlant(plant, read.plant)) {
        return { kind: 'confirmed', plant: read.plant, rawBody: read.rawBody, attempts: error.attempts };
      }
      throw differs(plant, read.rawBody, `a plant with id ${plant.id} is stored with other data`, error.attempts);
    }
    if (read === 'absent') {
      // Not applied: sent again, once (a 409 then is settled as after a retry); in doubt until that
      // settles, since a late commit may show yet.
      if (!state.resent) return this.add(plant, { resent: true, earlierAttempts: error.attempts, maybeApplied: true });
      if (!mayHaveBeenApplied(error)) throw error;
    }
    throw new NoAnswerError(plant.id, error, {
      noReadBack: read === 'no-get',
      storeArgs: this.#options.client.storeArgs,
    });
  }

  /** `existsPerStore`: the store has just said the id exists (409), so a 404 means it has no GET for plants. */
  async #readBack(id: bigint, existsPerStore: boolean): Promise<ReadBack> {
    if (this.#noGet) return 'no-get';
    const read = await readPlant(this.#options.client, id, this.#options.retry);
    if (typeof read === 'object') return read;
    if (read === 405 || (read === 404 && existsPerStore)) {
      // (Another read-back may have said so while this one waited.)
      if (!this.#noGet) this.#options.onNoReadBack?.(NO_READ_BACK_MESSAGE);
      this.#noGet = true;
      return 'no-get';
    }
    return read === 404 ? 'absent' : 'failed';
  }
}

/** DELETE /plants/{id}; one that may have been applied is settled by reading the plant back. */
export async function deleteConfirmed(client: PlantClient, id: bigint): Promise<{ confirmed: boolean }> {
  try {
    await client.deletePlant(id);
    return { confirmed: false };
  } catch (error) {
    if (!(error instanceof ResponseError || error instanceof UnreachableError) || !mayHaveBeenApplied(error)) {
      throw error;
    }
    const read = await readPlant(client, id);
    if (read === 404) return { confirmed: true };
    if (typeof read === 'object' && error instanceof ResponseError) {
      const settled = new ResponseError(`${error.message} (read back, plant ${id} is still there: not deleted)`, error);
      settled.attempts = error.attempts;
      throw settled;
    }
    if (typeof read === 'object') throw error;
    throw new NoAnswerError(id, error, { done: 'deleted', storeArgs: client.storeArgs });
  }
}

/** The same plant: id digit for digit, name and tag exactly (an absent tag is only equal to an absent one). */
export function sameNewPlant(sent: NewPlant, stored: StoredPlant): boolean {
  return sent.id === stored.id && sent.name === stored.name && sent.tag === stored.tag;
}

function differs(
  plant: NewPlant,
  storedRaw: string,
  serverMessage: string,
  attempts: number,
  prefix = '',
): ConflictError {
  const sentPlant = stringifyJsonExact(plant);
  const storedPlant = storedRaw.trim().includes('\n') ? storedRaw.replace(/\s*\n\s*/g, '') : storedRaw.trim();
  return new ConflictError(`${prefix}${serverMessage}, with other data than was sent`, {
    body: { error: 409, message: `${serverMessage}, with other data than was sent` },
    sentPlant,
    storedPlant,
    attempts,
  });
}
