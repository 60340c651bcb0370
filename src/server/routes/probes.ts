import { createBearerAuth } from '../auth.js';
import { isLoopbackAddress } from '../http/request.js';
import { sendBody, sendJson } from '../http/response.js';
import type { ServerMetrics } from '../observability/server-metrics.js';
/**
 * The contract served at GET /openapi.json: the seed interface (spec/plant-store.openapi.yaml) with
 * what this server really does added (the id in POST's 200, length limits, every status it answers
 * with its Error body, the probes, /reset, `servers: /`), each checked by test/server/app.test.ts;
 * Redocly's recommended rules pass on it (openapi-lint.test.ts). A document, so a data file.
 */
import plantStoreOpenApi from '../openapi.json' with { type: 'json' };
import type { PlantServerOptions } from '../server-options.js';
import type { Handler, RouteContext } from './route-context.js';

export interface ProbeOptions extends Pick<PlantServerOptions, 'tokens' | 'metricsToken'> {
  /** Serves GET /metrics (Prometheus text) when given. */
  metrics?: Pick<ServerMetrics, 'contentType' | 'scrape'>;
}

/** Probes and metadata: /livez, /healthz, /readyz, /openapi.json and /metrics. */
export function createProbeRoutes({ store, fail }: RouteContext, options: ProbeOptions) {
  // /livez: the process answers. /readyz: the store can serve too; an orchestrator sends traffic
  // only to a ready instance and restarts only one that is not live. /healthz, the older name
  // load balancers ask: up and the store reachable (503 while the database is away).
  const live: Handler = (_req, res) => sendJson(res, 200, '{"status":"ok"}');
  const checked =
    (body: string): Handler =>
    (req, res) => {
      store.check().then(
        () => sendJson(res, 200, body),
        (error: unknown) => fail(req, res, error),
      );
    };
  const health = checked('{"status":"ok"}');
  // Stopping is not ready either: a closed store is answered 503, and the balancer stops sending here.
  const ready = checked('{"status":"ready"}');
  const openapi = JSON.stringify(plantStoreOpenApi);
  const contract: Handler = (_req, res) => sendJson(res, 200, openapi);
  const { metrics } = options;
  // Absent without metrics.
  if (metrics === undefined) return { live, health, ready, contract, scrape: undefined };
  // Loopback is this machine: a scraper there may read without a token, unless a metrics token
  // is set (a reverse proxy on this machine would make every client look local).
  const metricsOpenOnLoopback = options.metricsToken === undefined;
  const authorizeMetrics = createBearerAuth(
    options.metricsToken === undefined ? options.tokens : [...options.tokens, options.metricsToken],
  );
  const scrape: Handler = (req, res) => {
    if (!(metricsOpenOnLoopback && isLoopbackAddress(req.socket.remoteAddress))) {
      authorizeMetrics(req.headers.authorization);
    }
    metrics.scrape().then(
      (text) => sendBody(res, 200, metrics.contentType, text),
      (error: unknown) => fail(req, res, error),
    );
  };
  return { live, health, ready, contract, scrape };
}

/** Probes an orchestrator asks, and scrapes, every few seconds: logged only at the debug level. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/metrics']);
