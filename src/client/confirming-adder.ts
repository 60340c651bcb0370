import { stringifyJsonExact } from '../schema/exact-json.js';
import { type NewPlant, type StoredPlant, storedPlantOfConflict } from '../schema/plant.js';
import { AuthRejectedError, ConflictError, NoAnswerError, ResponseError, UnreachableError } from './errors.js';
import type { AddedPlant, PlantClient } from './plant-client.js';
import type { RetryPolicy } from './retry-policy.js';

/** A plant the store holds exactly as sent, as GET /plants/{id} gave it. */
export interface ReadBackPlant {
  plant: StoredPlant;
  rawBody: string;
  /** How many times the POST was sent. */
  attempts: number;
}

/**
 * What became of an add that did not fail:
 * - `added`: answered 200 (or 201);
 * - `confirmed`: a 409 met on any attempt after the first, or an attempt that may have been applied (no whole
 *   answer, or an answer saying its outcome is unknown), and the store holds the plant exactly as sent: most
 *   likely our own earlier attempt added it;
 * - `existing`: a 409 on the first attempt (with skipExisting) for a plant stored exactly as sent.
 */
export type AddSettled =
  | { kind: 'added'; added: AddedPlant }
  | ({ kind: 'confirmed' } & ReadBackPlant)
  | ({ kind: 'existing' } & ReadBackPlant);

export interface ConfirmingAdderOptions {
  client: PlantClient;
  /** The retry policy of the adds; the read-backs go under the same one. */
  retry: RetryPolicy;
  /** Read back on every 409, not only on one met after a retry. */
  skipExisting: boolean;
  /** Told once, the first time the store turns out to have no GET /plants/{id}. */
  onNoReadBack?: (message: string) => void;
}

/** What reading a plant back found: the plant, or why not (`no-get`: the store has no GET for plants). */
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

/** Where an add stands before its next try: sent once more already, and how. */
interface Tries {
  /** Sent again after a read-back found it absent: it is not sent a third time. */
  resent: boolean;
  /** Attempts before this exchange's. */
  earlierAttempts: number;
  /** An earlier try may have been applied: until a read-back settles it, the add is in doubt. */
  maybeApplied: boolean;
}

const FIRST_TRY: Tries = { resent: false, earlierAttempts: 0, maybeApplied: false };

/** The request may have been applied: sent with no whole answer, or answered that its outcome is unknown. */
function mayHaveBeenApplied(error: ResponseError | UnreachableError): boolean {
  return error instanceof ResponseError ? error.mayHaveBeenApplied : error.sentNoAnswer;
}

/** The one sentence said (once) about a store that cannot be read back. */
export const NO_READ_BACK_MESSAGE =
  'the store does not answer GET /plants/{id}, so a 409 cannot be checked against what was sent: it is reported as the server answered it';

/**
 * Adds plants so that a run can be repeated, and an add that may have been applied is never
 * taken for a failure: a 409 on a second or later attempt (and with skipExisting any 409) is
 * settled by the stored plant the 409 carries, or else by reading it back (GET /plants/{id});
 * an add any try of which may have been applied (sent with no whole answer, or answered that its
 * outcome is unknown) by reading it back, through the same client and retry policy. A plant
 * stored exactly as sent (id digit for digit, name, tag) is ours; one stored with other data is a
 * conflict (ConflictError, both versions); one not there is sent once more; a store with no GET
 * for plants keeps the server's 409 (and says so once). Rejects with ConflictError,
 * ResponseError (not applied), NoAnswerError (may have been applied, not settled) or
 * UnreachableError (never sent).
 */
export class ConfirmingAdder {
  readonly #options: ConfirmingAdderOptions;
  /** Set (and said, once) when a read-back met 404 for an id the store had just answered 409 for, or a 405. */
  #noGet = false;

  constructor(options: ConfirmingAdderOptions) {
    this.#options = options;
  }

  add(plant: NewPlant, state = FIRST_TRY): Promise<AddSettled> {
    // The path every record of a bulk add takes: one promise more than the POST itself.
    return this.#options.client.addPlant(plant, { retry: this.#options.retry }).then(
      (added): AddSettled => {
        added.attempts += state.earlierAttempts;
        return { kind: 'added', added };
      },
      (error: unknown) => this.settle(plant, error, state),
    );
  }

  /**
   * Settles what `client.addPlant(plant, { retry })` rejected with, as `add` would have: for a
   * caller that sends first and loads this module only when the add did not simply succeed.
   * (`state`: the adder's own, when it sent the plant again.)
   */
  async settle(plant: NewPlant, error: unknown, state: Tries = FIRST_TRY): Promise<AddSettled> {
    if (!(error instanceof ResponseError || error instanceof UnreachableError)) throw error;
    error.attempts += state.earlierAttempts;
    if (error instanceof ResponseError && !(error instanceof AuthRejectedError) && error.status === 409) {
      // After a resend, a 409 may be the first (unanswered) POST's doing, as after a retry; so it
      // may after any earlier attempt, whatever that attempt was answered (a 503 sent while the
      // database was committing it): the stored plant settles it.
      const afterRetry = error.afterRetry || state.resent || error.attempts > 1;
      if (!afterRetry && !this.#options.skipExisting) throw error;
      return this.#settleConflict(plant, error, afterRetry);
    }
    if (state.maybeApplied || mayHaveBeenApplied(error)) return this.#settleInDoubt(plant, error, state);
    throw error;
  }

  async #settleConflict(plant: NewPlant, conflict: ResponseError, afterRetry: boolean): Promise<AddSettled> {
    // `plants serve` puts the stored plant in its 409: compared as a read-back would be, with no
    // GET (a re-run where every record exists costs one request per record, not two). A store
    // whose 409 is the Error record alone is read back.
    const carried = storedPlantOfConflict(conflict.rawBody);
    const read =
      carried !== undefined && carried.plant.id === plant.id ? carried : await this.#readBack(plant.id, true);
    if (typeof read === 'object') {
      const stored = { plant: read.plant, rawBody: read.rawBody, attempts: conflict.attempts };
      if (sameNewPlant(plant, read.plant)) return { kind: afterRetry ? 'confirmed' : 'existing', ...stored };
      throw differs(plant, read.rawBody, conflict.body.message, conflict.attempts, 'the server answered 409: ');
    }
    // After a retry the 409 may be our own earlier try's doing: not readable now, that is unknown.
    if (read === 'failed' && afterRetry) {
      throw new NoAnswerError(plant.id, conflict, { storeArgs: this.#options.client.storeArgs });
    }
    throw conflict;
  }

  /** An add that failed after a try that may have been applied: what the store holds settles it. */
  async #settleInDoubt(plant: NewPlant, error: ResponseError | UnreachableError, state: Tries): Promise<AddSettled> {
    const read = await this.#readBack(plant.id, false);
    if (typeof read === 'object') {
      if (sameNewPlant(plant, read.plant)) {
        return { kind: 'confirmed', plant: read.plant, rawBody: read.rawBody, attempts: error.attempts };
      }
      throw differs(plant, read.rawBody, `a plant with id ${plant.id} is stored with other data`, error.attempts);
    }
    if (read === 'absent') {
      // Not there: not applied, so it is safe to send again, once (the store's 409 still guards
      // against a double add, and a 409 then is settled as after a retry). Still in doubt until
      // that settles: if it fails too, it is read back once more (a late commit shows there).
      if (!state.resent) return this.add(plant, { resent: true, earlierAttempts: error.attempts, maybeApplied: true });
      // Sent again, read back twice and not there, its last try certainly not applied: not added.
      if (!mayHaveBeenApplied(error)) throw error;
    }
    throw new NoAnswerError(plant.id, error, {
      noReadBack: read === 'no-get',
      storeArgs: this.#options.client.storeArgs,
    });
  }

  /**
   * GET /plants/{id}. `existsPerStore`: the store has just said the id exists (409), so a 404 means
   * it has no GET for plants, not that the plant is missing.
   */
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

/**
 * DELETE /plants/{id}, never reported as not done while it may have been: a delete that may
 * have been applied (sent with no whole answer, or answered that its outcome is unknown) is
 * settled by reading the plant back. Gone: it was deleted (`confirmed`). Still there: it was
 * not, and the failure says so (a ResponseError, exit 1; a missing answer stays what it was).
 * Not read: NoAnswerError (exit 3), which says how to look.
 */
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
