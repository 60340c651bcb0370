import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestRecord } from './request-record.js';

export interface ServerMetricsSources {
  /** Asks the store whether it can serve (`/readyz`'s question). */
  checkStore(): Promise<void>;
  /** Connections open right now. */
  openConnections(): number;
}

export interface ServerMetrics {
  /** The Content-Type of `scrape()`'s text: Prometheus's text format 0.0.4. */
  readonly contentType: string;
  request(record: RequestRecord): void;
  /** A group commit: how many plants its transaction held. */
  commit(batchSize: number): void;
  /** A store operation that failed (a commit that rolled back counts once for its batch). */
  storeError(): void;
  scrape(): Promise<string>;
}

/** Seconds: a request is well under a millisecond warm; a durable commit waits for an fsync. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Plants a transaction: 1 when idle, up to the store's cap (1000) under load. */
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * The server's Prometheus metrics, in a registry of its own (not prom-client's global one, so
 * two servers in one process, as in tests, do not mix). Per request: one counter and one
 * histogram, through label children cached by route, method and status (prom-client still
 * hashes the labels at each call: about 0.7 µs of CPU a request for both, measured on Node 20).
 * The store's state and the open connections are read when scraped.
 */
export function createServerMetrics(sources: ServerMetricsSources): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'plants_http_requests_total',
    help: 'HTTP requests answered, by route, method and status (499: the client went away first)',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'plants_http_request_duration_seconds',
    help: 'Time from the request line to the end of the answer, by route and method',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const commits = new Counter({
    name: 'plants_store_commits_total',
    help: 'Transactions committed by group commit',
    registers: [registry],
  });
  const batchSizes = new Histogram({
    name: 'plants_store_commit_batch_size',
    help: 'Plants in each committed transaction',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'plants_store_errors_total',
    help: 'Store operations that failed (each answered with a 5xx: 500, 503 or 507)',
    registers: [registry],
  });
  new Gauge({
    name: 'plants_store_up',
    help: '1 when the store is reachable and migrated (what /readyz answers 200 to), else 0',
    registers: [registry],
    async collect() {
      try {
        await sources.checkStore();
        this.set(1);
      } catch {
        this.set(0);
      }
    },
  });
  new Gauge({
    name: 'plants_http_open_connections',
    help: 'Client connections open now',
    registers: [registry],
    collect() {
      this.set(sources.openConnections());
    },
  });

  type Children = { count: { inc(): void }; time: { observe(value: number): void } };
  const children = new Map<string, Children>();
  return {
    contentType: registry.contentType,
    request(record) {
      // Methods outside HTTP's own would make a label value per client whim.
      const method = KNOWN_METHODS.has(record.method) ? record.method : 'OTHER';
      const key = `${record.route} ${method} ${record.status}`;
      let child = children.get(key);
      if (child === undefined) {
        child = {
          count: requests.labels(record.route, method, String(record.status)),
          time: latency.labels(record.route, method),
        };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(record.durationMs / 1000);
    },
    commit(batchSize) {
      commits.inc();
      batchSizes.observe(batchSize);
    },
    storeError() {
      storeErrors.inc();
    },
    scrape: () => registry.metrics(),
  };
}

const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'CONNECT',
]);
