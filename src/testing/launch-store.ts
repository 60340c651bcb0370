import type { PlantServerOptions } from '../server/server-options.js';
import { type RunningPlantServer, startPlantServer } from '../server/start.js';
import { type CheckedStoreOptions, checkControls } from './store-options.js';
import type { JournalEntry, Store, StoreControls } from './store-types.js';

/** Options of the server itself, beyond what a test double takes: for the package's own tests. */
export type ServerExtras = Omit<
  Partial<PlantServerOptions>,
  'tokens' | 'database' | 'seed' | 'allowReset' | 'delay' | 'faults' | 'faultSeed' | 'controlsFromCode'
>;

/** startStore, with the server's own options too. */
export async function launchStore(
  options: CheckedStoreOptions,
  extras: ServerExtras = {},
): Promise<Store & { server: RunningPlantServer }> {
  const server = await startPlantServer({
    host: '127.0.0.1',
    port: 0,
    durability: 'full',
    ...extras,
    tokens: [options.token],
    database: options.database,
    seed: options.seed,
    allowReset: options.allowReset,
    ...options.controls,
    controlsFromCode: true,
  });
  const { controls, journal, reset } = server.testDouble;
  return {
    url: server.url,
    token: options.token,
    server,
    reset,
    controls: () => stateOf(controls.state()),
    setControls: (update) => stateOf(controls.apply(checkControls(update))),
    journal: () => journal.since().map((text) => JSON.parse(text) as JournalEntry),
    close: () => server.close(),
    [Symbol.asyncDispose]: () => server.close(),
  };
}

function stateOf({ delay, faults, faultSeed }: StoreControls): StoreControls {
  return { delay, faults, faultSeed };
}
