import { createPlantApp } from './app.js';
import { type Listening, listen } from './listen.js';
import type { RequestObserver } from './observability/request-record.js';
import type { ServerLog } from './observability/server-log.js';
import { createServerLog, defaultInstanceName } from './observability/server-log.js';
import type { ServerMetrics } from './observability/server-metrics.js';
import { createServePage, isPageOrProbe } from './page/page-routes.js';
import { checkServerOptions, DEFAULT_CLOSE_TIMEOUT_MS, type PlantServerOptions } from './server-options.js';
import { isDatabaseServer, openPlantStore } from './stores/open-store.js';
import type { PlantStore } from './stores/plant-store.js';
import { createTestControls } from './test-double/test-controls.js';

export type RunningPlantServer = ReturnType<typeof running>;

/**
 * Starts the plant server in named steps: check the options, make the log and metrics, listen,
 * open the store, wire the routes; close() takes them down in the reverse order. Throws
 * ServerOptionsError or ListenError (both exit 2), or a store's DatabaseOpenError or
 * DatabaseConnectError, having released whatever it had taken.
 */
export async function startPlantServer(options: PlantServerOptions) {
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
    /** Base URL of the store, e.g. `http://127.0.0.1:4010` (no trailing slash). */
    url: listening.url,
    /** The page's address, e.g. `http://127.0.0.1:4010/_serve/`. */
    pageUrl: listening.pageUrl,
    port: listening.port,
    /** What a test steers while the server runs: the delay and faults, the journal, the reset. */
    testDouble: { controls: routes.controls, journal: routes.journal, reset: routes.reset },
    /**
     * Stops accepting connections, lets requests in flight finish (at most closeTimeoutMs),
     * commits any queued plants and closes the database. Safe to call more than once.
     */
    close(): Promise<void> {
      // serve --fault stall: requests that will never be answered are not waited for; open
      // tabs' event streams would otherwise hold the stop for closeTimeoutMs.
      routes.quiesce();
      // Every response has been sent, and every plant it acknowledged committed, once the
      // listening is closed; the store then commits what is still queued (from connections cut
      // at the deadline) and closes.
      closed ??= listening.close(closeTimeoutMs).then(() => store.close());
      return closed;
    },
  };
}

/** The app over an open store, and the parts of it a test steers. */
type WiredRoutes = ReturnType<typeof wireRoutes>;

/** What the routes report to, made before the store is opened (the metrics read it through `checkStore`). */
export interface ServerObservers {
  log: ServerLog | undefined;
  metrics: ServerMetrics | undefined;
  onInternalError: (error: unknown) => void;
}

/**
 * The third step of a start: the route table over the open store, with serve's test double
 * (delay, faults, reset) and its page (journal, controls).
 */
export function wireRoutes(options: PlantServerOptions, store: PlantStore, observers: ServerObservers) {
  const { log, metrics } = observers;
  const seedPlants = options.seed?.plants ?? [];
  // --allow-reset marks a store for tests: its delay and faults may then change while it serves.
  const controls = createTestControls({
    delay: options.delay,
    faults: options.faults,
    faultSeed: options.faultSeed ?? 0,
    editable: options.allowReset === true,
    changeableFromCode: options.controlsFromCode === true,
  });
  const page = createServePage({
    tokens: options.tokens,
    info: { instance: options.instance ?? defaultInstanceName(), store: storeKind(options.database) },
    controls,
    journal: options.journal,
  });
  // The page's own requests (a stream, a poll every few seconds) are logged as probes are: at debug.
  const logRequest: RequestObserver | undefined =
    log === undefined
      ? undefined
      : (record) => log.request(!record.probe && isPageOrProbe(record) ? { ...record, probe: true } : record);
  const reset = () => store.replaceAll(seedPlants);
  const app = createPlantApp({
    store,
    tokens: options.tokens,
    observe: observerOf(logRequest, metrics?.request, page.observe),
    onStoreError: metrics?.storeError,
    metrics,
    metricsToken: options.metricsToken,
    onInternalError: observers.onInternalError,
    maxBodyBytes: options.maxBodyBytes,
    corsOrigins: options.corsOrigins,
    reset: options.allowReset === true ? reset : undefined,
    interceptPlantRequest: controls.interceptor,
    extraRoutes: page.routes,
  });
  return {
    app,
    /** serve's delay and faults (the page's controls). */
    controls,
    /** The page's request journal (GET /_serve/journal). */
    journal: page.journal,
    /** Puts the store back to the seed (or empty): what POST /reset does when allowed. */
    reset,
    /** Lets go of what would hold a stop: stalled requests (serve --fault stall) and the page's event streams. */
    quiesce() {
      controls.dropStalled();
      page.close();
    },
  };
}

/** `memory`, `postgres` or `sqlite`: the page says whether its journal and controls are this instance's alone. */
function storeKind(database: string): 'sqlite' | 'memory' | 'postgres' {
  if (database === ':memory:') return 'memory';
  return isDatabaseServer(database) ? 'postgres' : 'sqlite';
}

/** One observer for the log and the metrics, or none: with neither, the app skips the bookkeeping. */
function observerOf(...observers: Array<RequestObserver | undefined>): RequestObserver | undefined {
  const present = observers.filter((observer) => observer !== undefined);
  if (present.length <= 1) return present[0];
  return (record) => {
    for (const observer of present) observer(record);
  };
}
