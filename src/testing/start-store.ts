import { launchStore } from './launch-store.js';
import { checkStoreOptions } from './store-options.js';
import type { Store, StoreOptions } from './store-types.js';

/**
 * Starts a plant store on 127.0.0.1, on a port of its own, in memory unless `db` or `database`
 * says otherwise, and resolves once it listens. A bad option is a TypeError naming it, thrown
 * before anything listens. Many stores can run in one process, each with its own port, token
 * and data.
 */
export async function startStore(options?: StoreOptions): Promise<Store> {
  return launchStore(await checkStoreOptions(options));
}
