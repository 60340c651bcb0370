import type { NewPlant } from '../../schema/plant.js';

/** What an add came to: stored, or refused because the id is taken (the stored plant is unchanged). */
export type AddResult = { added: true; plant: NewPlant } | { added: false; id: bigint };

/**
 * Where `plants serve` keeps its plants. Two implementations, chosen at start-up by
 * `openPlantStore`: SQLite (a file, or memory) and PostgreSQL. The request handler talks to
 * this interface only, so every route behaves the same on both.
 *
 * Every method that reaches the database may reject with a StoreError (store-errors.ts):
 * StoreUnavailableError (the database cannot be reached just now; nothing was changed, the
 * client may try again), OutcomeUnknownError (the database went away after a change was sent
 * to it: it may or may not be made), StoreClosedError (the server is shutting down), or a
 * storage fault (CommitInterruptedError: the storage failed under a commit, which may or may not be made).
 */
export interface PlantStore {
  /**
   * Adds a plant; resolves only once it is committed, or with `added: false` when the id is taken.
   * Of adds of one id, the one called first is the one stored: pipelined adds on a connection
   * overlap on that promise (see connection-order.ts).
   */
  add(plant: NewPlant): Promise<AddResult>;
  get(id: bigint): Promise<NewPlant | undefined>;
  /** Up to `limit` plants with an id above `after` (or from the first), in id order. */
  page(after: bigint | undefined, limit: number): Promise<NewPlant[]>;
  /** Deletes a plant, committed before it resolves; false when there was none. */
  remove(id: bigint): Promise<boolean>;
  /**
   * Makes the store hold exactly `plants` (ids distinct), in one transaction: every plant there
   * before is gone, and no read ever sees a state in between. Adds queued before the call are
   * committed before it (and so replaced). `plants serve --allow-reset` puts the seed back with it.
   */
  replaceAll(plants: readonly NewPlant[]): Promise<void>;
  /** Resolves when the store can take requests now; else rejects with StoreUnavailableError. */
  check(): Promise<void>;
  /** Commits what is queued and lets the database go. Safe to call twice. */
  close(): Promise<void>;
}
