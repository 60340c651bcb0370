import type { PlantStore } from './plant-store.js';
import type { Durability } from './sqlite/sqlite-plant-store.js';

export interface OpenStoreOptions {
  /** SQLite database file, created if missing; or `:memory:`. */
  database: string;
  /** SQLite `synchronous` level in WAL mode; see Durability. */
  durability: Durability;
  /** How long SQLite waits for a lock another process holds. Default 5 000. */
  busyTimeoutMs?: number;
}

/**
 * Opens the store `options.database` names. Each implementation is loaded only when chosen, so
 * that a server on one backend never loads the other's driver.
 */
export async function openPlantStore(options: OpenStoreOptions): Promise<PlantStore> {
  const { SqlitePlantStore } = await import('./sqlite/sqlite-plant-store.js');
  return SqlitePlantStore.open(options.database, {
    durability: options.durability,
    busyTimeoutMs: options.busyTimeoutMs,
  });
}
