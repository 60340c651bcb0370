import { type Listening, listen } from './listen.js';
import { createServerLog, defaultInstanceName } from './observability/server-log.js';
import type { ServerMetrics } from './observability/server-metrics.js';
import { checkServerOptions, DEFAULT_CLOSE_TIMEOUT_MS, type PlantServerOptions } from './server-options.js';
import { openPlantStore } from './stores/open-store.js';
import type { PlantStore } from './stores/plant-store.js';
import { type ServerObservers, type WiredRoutes, wireRoutes } from './wire-routes.js';

export interface RunningPlantServer {
  /** Base URL of the store, e.g. `http://127.0.0.1:4010` (no trailing slash). */
  url: string;
  /** The page's address, e.g. `http://127.0.0.1:4010/_serve/`. */
  pageUrl: string;
  port: number;
  /** What a test steers while the server runs: the delay and faults, the journal, the reset. */
  testDouble: Pick<WiredRoutes, 'controls' | 'journal' | 'reset'>;
  /**
   * Stops accepting connections, lets requests in flight finish (at most closeTimeoutMs),
   * commits any queued plants and closes the database. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Starts the plant server in named steps: check the options, make the log and metrics, listen,
 * open the store, wire the routes; close() takes them down in the reverse order. Throws
 * ServerOptionsError or ListenError (both exit 2), or a store's DatabaseOpenError or
 * DatabaseConnectError, having released whatever it had taken.
 */
export async function startPlantServer(options: PlantServerOptions): Promise<RunningPlantServer> {
  checkServerOptions(options);
  // The metrics read the store and the connections, each made later: they reach them through these.
  let store: PlantStore | undefined;
  let listening: Listening | undefined;
  const observers = await makeObservers(options, {
    checkStore: () => store?.check() ?? Promise.resolve(),
    openConnections: () => listening?.connectionCount() ?? 0,
  });
  listening = await listen(options);
  try {
    store = await openStore(options, observers.metrics);
  } catch (error) {
    await listening.abort();
    throw error;
  }
  const routes = wireRoutes(options, store, observers);
  listening.serve(routes.app, observers.onInternalError);
  return running(listening, routes, store, options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
}

/** The log (only when asked for), the metrics (only when asked for), and where a 500's error goes. */
export async function makeObservers(
  options: PlantServerOptions,
  reach: { checkStore(): Promise<void>; openConnections(): number },
): Promise<ServerObservers> {
  const log =
    options.log === undefined
      ? undefined
      : await createServerLog({
          format: options.logFormat ?? 'text',
          level: options.logLevel ?? 'info',
          instance: options.instance ?? defaultInstanceName(),
          write: options.log,
        });
  let metrics: ServerMetrics | undefined;
  if (options.metrics === true) {
    const { createServerMetrics } = await import('./observability/server-metrics.js');
    metrics = createServerMetrics(reach);
  }
  return {
    log,
    metrics,
    onInternalError(error) {
      options.onInternalError?.(error);
      log?.internalError(error);
    },
  };
}

/**
 * The store `options.database` names, with the seed put in; a store that opened but could not
 * take the seed is closed again before the error is thrown.
 */
export async function openStore(options: PlantServerOptions, metrics?: ServerMetrics): Promise<PlantStore> {
  const store = await openPlantStore({
    database: options.database,
    durability: options.durability,
    busyTimeoutMs: options.busyTimeoutMs,
    postgresEnv: options.postgresEnv,
    onCommit: metrics?.commit,
  });
  if (options.seed === undefined) return store;
  try {
    const { applySeed } = await import('./test-double/seed.js');
    await applySeed(store, options.seed);
    return store;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** The started server; its close() is the steps in the reverse order: routes, listening, store. */
function running(listening: Listening, routes: WiredRoutes, store: PlantStore, closeTimeoutMs: number) {
  let closed: Promise<void> | undefined;
  return {
    url: listening.url,
    pageUrl: listening.pageUrl,
    port: listening.port,
    testDouble: { controls: routes.controls, journal: routes.journal, reset: routes.reset },
    close() {
      // serve --fault stall: requests that will never be answered are not waited for; open
      // tabs' event streams would otherwise hold the stop for closeTimeoutMs.
      routes.quiesce();
      // Every response has been sent, and every plant it acknowledged committed, once the
      // listening is closed; the store then commits what is still queued (from connections cut
      // at the deadline) and closes.
      closed ??= listening.close(closeTimeoutMs).then(() => store.close());
      return closed;
    },
  } satisfies RunningPlantServer;
}
