import type { NewPlant } from '../../schema/plant.js';

export type AddResult = { added: true; plant: NewPlant } | { added: false; id: bigint };

/**
 * Where `plants serve` keeps its plants; the routes talk to this only, so they behave the same on SQLite and
 * PostgreSQL. A method that reaches the database may reject with StoreUnavailableError (not reached; nothing
 * changed, worth trying again), OutcomeUnknownError or CommitInterruptedError (a change was sent, and may or
 * may not be made) or StoreClosedError (shutting down).
 */
export interface PlantStore {
  /**
   * Resolves only once committed. Of adds of one id, the one called first is stored: pipelined adds on a
   * connection overlap on that promise (connection-order.ts).
   */
  add(plant: NewPlant): Promise<AddResult>;
  get(id: bigint): Promise<NewPlant | undefined>;
  /** Up to `limit` plants with an id above `after` (or from the first), in id order. */
  page(after: bigint | undefined, limit: number): Promise<NewPlant[]>;
  remove(id: bigint): Promise<boolean>;
  /** In one transaction: no read ever sees a state in between. Adds queued before the call are replaced too. */
  replaceAll(plants: readonly NewPlant[]): Promise<void>;
  check(): Promise<void>;
  /** Commits what is queued. Safe to call twice. */
  close(): Promise<void>;
}
