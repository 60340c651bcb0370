import type { PlantServerOptions } from '../server/server-options.js';
import { type RunningPlantServer, startPlantServer } from '../server/start.js';
import {
  type CheckedStoreOptions,
  checkControls,
  checkStoreOptions,
  type StoreControls,
  type StoreControlsUpdate,
  type StoreOptions,
} from './store-options.js';

/** One answered request, as GET /_serve/journal lists it. */
export interface JournalEntry {
  /** 1, 2, 3…: the order requests were answered in. */
  seq: number;
  /** When the answer ended (or the client went), ISO 8601 in UTC. */
  time: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  /** The fault injected, if any. */
  fault?: string;
}

/** A plant store of its own, on a free loopback port: the server of `plants serve`, in this process. */
export interface Store {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  /** The bearer token it accepts. */
  readonly token: string;
  /** Puts the store back to its seed (or empty), as POST /reset does. */
  reset(): Promise<void>;
  /** The delay and faults in force. */
  controls(): StoreControls;
  /** Sets or clears the delay and faults (allowReset or not); a bad update is a TypeError naming the field. */
  setControls(update: StoreControlsUpdate): StoreControls;
  /** The requests answered so far (the newest 1000 at most), oldest first: GET /_serve/journal's entries. */
  journal(): JournalEntry[];
  /** Lets requests in flight finish, then closes the port and the store; leaves no handle open. Safe to call twice. */
  close(): Promise<void>;
  /** close(), for `await using store = await startStore()`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a plant store on 127.0.0.1, on a port of its own, in memory unless `db` or `database`
 * says otherwise, and resolves once it listens. A bad option is a TypeError naming it, thrown
 * before anything listens. Many stores can run in one process, each with its own port, token
 * and data.
 */
export async function startStore(options?: StoreOptions): Promise<Store> {
  return launchStore(await checkStoreOptions(options));
}

/** Options of the server itself, beyond what a test double takes: for the package's own tests. */
export type ServerExtras = Omit<
  Partial<PlantServerOptions>,
  'tokens' | 'database' | 'seed' | 'allowReset' | 'delay' | 'faults' | 'faultSeed' | 'controlsFromCode'
>;

/** startStore with its options checked, and the server's own options given as well. */
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
