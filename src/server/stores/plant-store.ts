import type { NewPlant } from '../../schema/plant.js';

export type AddResult = { added: true; plant: NewPlant } | { added: false; id: bigint };

/** Every method that reaches the database may reject with a StoreError (store-errors.ts). */
export interface PlantStore {
  /**
   * Resolves only once committed. Of adds of one id, the one called first is stored: pipelined adds on a
   * connection overlap on that promise (connection-order.ts).
   */
  add(plant: NewPlant): Promise<AddResult>;
  get(id: bigint): Promise<NewPlant | undefined>;
  page(after: bigint | undefined, limit: number): Promise<NewPlant[]>;
  remove(id: bigint): Promise<boolean>;
  /** In one transaction: no read ever sees a state in between. Adds queued before the call are replaced too. */
  replaceAll(plants: readonly NewPlant[]): Promise<void>;
  check(): Promise<void>;
  /** Commits what is queued. Safe to call twice. */
  close(): Promise<void>;
}
