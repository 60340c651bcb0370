import type http from 'node:http';
import { createPlantApp } from './app.js';
import type { RequestObserver } from './observability/request-record.js';
import { defaultInstanceName, type ServerLog } from './observability/server-log.js';
import type { ServerMetrics } from './observability/server-metrics.js';
import { createServePage, isPageOrProbe } from './page/page-routes.js';
import type { RequestJournal } from './page/request-journal.js';
import type { PlantServerOptions } from './server-options.js';
import { isDatabaseServer } from './stores/open-store.js';
import type { PlantStore } from './stores/plant-store.js';
import { createTestControls, type TestControls } from './test-double/test-controls.js';

/** The app over an open store, and the parts of it a test steers. */
export interface WiredRoutes {
  app: http.RequestListener;
  /** serve's delay and faults (the page's controls). */
  controls: TestControls;
  /** The page's request journal (GET /_serve/journal). */
  journal: RequestJournal;
  /** Puts the store back to the seed (or empty): what POST /reset does when allowed. */
  reset(): Promise<void>;
  /** Lets go of what would hold a stop: stalled requests (serve --fault stall) and the page's event streams. */
  quiesce(): void;
}

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
export function wireRoutes(options: PlantServerOptions, store: PlantStore, observers: ServerObservers): WiredRoutes {
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
    controls,
    journal: page.journal,
    reset,
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
