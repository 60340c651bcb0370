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

/** In named steps; close() takes them down in the reverse order. A failure releases whatever was taken. */
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

function running(listening: Listening, routes: WiredRoutes, store: PlantStore, closeTimeoutMs: number) {
  let closed: Promise<void> | undefined;
  return {
    /** No trailing slash. */
    url: listening.url,
    pageUrl: listening.pageUrl,
    port: listening.port,
    testDouble: { controls: routes.controls, journal: routes.journal, reset: routes.reset },
    /** Safe to call more than once. */
    close(): Promise<void> {
      // Stalled requests and open tabs' event streams would otherwise hold the stop for closeTimeoutMs.
      routes.quiesce();
      // The store then commits what is still queued, from connections cut at the deadline.
      closed ??= listening.close(closeTimeoutMs).then(() => store.close());
      return closed;
    },
  };
}

type WiredRoutes = ReturnType<typeof wireRoutes>;

/** Made before the store is opened (the metrics read it through `checkStore`). */
export interface ServerObservers {
  log: ServerLog | undefined;
  metrics: ServerMetrics | undefined;
  onInternalError: (error: unknown) => void;
}

export function wireRoutes(options: PlantServerOptions, store: PlantStore, observers: ServerObservers) {
  const { log, metrics } = observers;
  const seedPlants = options.seed?.plants ?? [];
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
    controls,
    journal: page.journal,
    reset,
    quiesce() {
      controls.dropStalled();
      page.close();
    },
  };
}

/** The page says whether its journal and controls are this instance's alone. */
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
