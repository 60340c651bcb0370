import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestRecord } from './request-record.js';

export interface ServerMetricsSources {
  checkStore(): Promise<void>;
  openConnections(): number;
}

export type ServerMetrics = ReturnType<typeof createServerMetrics>;

/** Seconds: a request is well under a millisecond warm; a durable commit waits for an fsync. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Plants a transaction: 1 when idle, up to the store's cap (1000) under load. */
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** A registry of its own: two servers in one process, as in tests, do not mix. */
export function createServerMetrics(sources: ServerMetricsSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestSeries();
  registry.registerMetric(requests.counter as never);
  registry.registerMetric(requests.latency as never);
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

  return {
    contentType: registry.contentType,
    request(record: RequestRecord): void {
      // Methods outside HTTP's own would make a label value per client whim.
      const method = KNOWN_METHODS.has(record.method) ? record.method : 'OTHER';
      requests.add(record.route, method, record.status, record.durationMs / 1000);
    },
    commit(batchSize: number): void {
      commits.inc();
      batchSizes.observe(batchSize);
    },
    /** A commit that rolled back counts once for its batch. */
    storeError(): void {
      storeErrors.inc();
    },
    scrape: () => registry.metrics(),
  };
}

const KNOWN_METHODS: ReadonlySet<string> = new Set('GET HEAD POST PUT DELETE PATCH OPTIONS TRACE CONNECT'.split(' '));

interface RequestCounts {
  count: number;
  latency: LatencyCounts;
}

interface LatencyCounts {
  /** Requests per bucket of LATENCY_BUCKETS (not cumulative); past the last bucket only in `count`. */
  buckets: number[];
  sum: number;
  count: number;
  labels: { route: string; method: string };
}

/**
 * Printed exactly as prom-client's Counter and Histogram, but kept by hand: prom-client validates and hashes the
 * labels at every inc() and observe(), a share of an add's cost the bench's metrics row shows.
 */
class RequestSeries {
  readonly #byStatus = new Map<string, RequestCounts & { labels: { route: string; method: string; status: string } }>();
  readonly #byRoute = new Map<string, LatencyCounts>();

  add(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let counts = this.#byStatus.get(key);
    if (counts === undefined) {
      const routeKey = `${route} ${method}`;
      let latency = this.#byRoute.get(routeKey);
      if (latency === undefined) {
        latency = { buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0, labels: { route, method } };
        this.#byRoute.set(routeKey, latency);
      }
      counts = { count: 0, latency, labels: { route, method, status: String(status) } };
      this.#byStatus.set(key, counts);
    }
    counts.count += 1;
    const { latency } = counts;
    latency.sum += seconds;
    latency.count += 1;
    // prom-client's rule: the first bucket whose upper bound is at least the value.
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= (LATENCY_BUCKETS[i] as number)) {
        latency.buckets[i] = (latency.buckets[i] as number) + 1;
        break;
      }
    }
  }

  readonly counter = asRegistered(
    'plants_http_requests_total',
    'HTTP requests answered, by route, method and status (499: the client went away first)',
    'counter',
    () => [...this.#byStatus.values()].map((counts) => ({ labels: counts.labels, value: counts.count })),
  );

  readonly latency = asRegistered(
    'plants_http_request_duration_seconds',
    'Time from the request line to the end of the answer, by route and method',
    'histogram',
    () => {
      const name = this.latency.name;
      const values: Array<{ labels: object; sharedLabels: object; value: number; metricName: string }> = [];
      for (const series of this.#byRoute.values()) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += series.buckets[i] as number;
          values.push({ labels: { le }, sharedLabels: series.labels, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push(
          { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: `${name}_bucket` },
          { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${name}_sum` },
          { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${name}_count` },
        );
      }
      return values;
    },
  );
}

/** A metric as prom-client's registry reads one. */
function asRegistered(name: string, help: string, type: string, values: () => object[]) {
  const about = { name, help, type, aggregator: 'sum' };
  return { ...about, get: async () => ({ ...about, values: values() }) };
}
