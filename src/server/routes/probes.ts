import { createBearerAuth } from '../auth.js';
import { isLoopbackAddress } from '../http/request.js';
import { sendBody, sendJson } from '../http/response.js';
import type { ServerMetrics } from '../observability/server-metrics.js';
/** spec/plant-store.openapi.yaml with what this server really does added, each checked by test/server/app.test.ts. */
import plantStoreOpenApi from '../openapi.json' with { type: 'json' };
import type { PlantServerOptions } from '../server-options.js';
import type { Handler, RouteContext } from './route-context.js';

export interface ProbeOptions extends Pick<PlantServerOptions, 'tokens' | 'metricsToken'> {
  metrics?: Pick<ServerMetrics, 'contentType' | 'scrape'>;
}

export function createProbeRoutes({ store, fail }: RouteContext, options: ProbeOptions) {
  // An orchestrator restarts only an instance that is not live, and sends traffic only to a ready one.
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
  if (metrics === undefined) return { live, health, ready, contract, scrape: undefined };
  // With a metrics token, none: a reverse proxy on this machine would make every client look local.
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

/** Asked every few seconds: logged only at the debug level. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/metrics']);
