import { launchStore } from './launch-store.js';
import { checkStoreOptions } from './store-options.js';
import type { Store, StoreOptions } from './store-types.js';

/**
 * Starts a plant store on a free 127.0.0.1 port, in memory unless `db` or `database` says otherwise;
 * resolves once it listens. A bad option is a TypeError naming it. Many can run in one process.
 */
export async function startStore(options?: StoreOptions): Promise<Store> {
  return launchStore(await checkStoreOptions(options));
}
