import { describeBadToken, isBearerToken } from '../schema/token.js';
import { createCors } from './cors.js';
import { ServerOptionsError } from './errors.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './observability/server-log.js';
import type { OpenStoreOptions } from './stores/open-store.js';
import type { Seed } from './test-double/seed.js';
import type { DelayRange, FaultRate } from './test-double/testing-options.js';

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/** The store's four options are openPlantStore's (`plants serve` should default durability to 'full'). */
export interface PlantServerOptions
  extends Pick<OpenStoreOptions, 'database' | 'postgresEnv' | 'durability' | 'busyTimeoutMs'> {
  /** Address to listen on, e.g. `127.0.0.1` (choosing a default is the caller's business). */
  host: string;
  /** TCP port; 0 picks a free one (read it back from `port`). */
  port: number;
  /** Browser origins allowed to call the store (CORS), e.g. `http://localhost:5173`. Default: none. */
  corsOrigins?: readonly string[];
  /** Accepted bearer tokens: at least one, each a valid RFC 6750 b64token. */
  tokens: readonly string[];
  /**
   * Receives each log line, without its newline, and its level: one per request
   * (`POST /plants 200 1.3ms`, or a JSON object with logFormat `json`) and one per internal
   * error. Never a token or a body. Omitted: nothing is logged.
   */
  log?: (line: string, level: LogLevel) => void;
  /** `text` (default) or `json` (one object a line, from pino). */
  logFormat?: LogFormat;
  /** `info` (default): requests, probes left out; `debug`: probes too; `error`: internal errors only. */
  logLevel?: LogLevel;
  /** Names this server in JSON log lines. Default `host:pid`. */
  instance?: string;
  /** Receives the error behind each 500 (the client only gets "internal server error"), besides the log. */
  onInternalError?: (error: unknown) => void;
  /** Serve Prometheus metrics at GET /metrics. Default false. */
  metrics?: boolean;
  /**
   * A bearer token that may read /metrics besides the store's tokens. Without it, a client on
   * loopback reads /metrics with no token; with it, every scrape needs a token.
   */
  metricsToken?: string;
  /** Largest accepted request body; larger is 413. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * All request headers must arrive within this, or the client gets 408 and is cut. Default
   * 10 000. With TLS, the handshake must finish within this too, or the socket is destroyed.
   */
  headersTimeoutMs?: number;
  /** The whole request, headers and body, must arrive within this, or 408. Default 30 000. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. Default 5 000. */
  keepAliveTimeoutMs?: number;
  /** At close, requests in flight get this long to finish before their connections are cut. Default 10 000. */
  closeTimeoutMs?: number;
  /** Serve HTTPS (node:https) with this certificate chain and private key, PEM. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Plants put into the store before it serves (serve --seed; see test-double/seed.ts): a plant
   * stored already with other fields refuses the start (SeedConflictError, exit 2).
   */
  seed?: Seed;
  /** Serve POST /reset, which puts the store back to the seed (or empty). Default false. */
  allowReset?: boolean;
  /** Each answer of a plant route waits a uniform draw from this range (serve --delay). */
  delay?: DelayRange;
  /** Faults injected into plant requests (serve --fault); see test-double/test-controls.ts. */
  faults?: readonly FaultRate[];
  /** Seeds the fault and delay draws (serve --fault-seed). Default 0. */
  faultSeed?: number;
  /** Bounds of the page's request journal (docs/serve-page.md). Default 1000 entries, 256 KiB. */
  journal?: { maxEntries?: number; maxBytes?: number };
  /**
   * The delay and faults may be changed by the code that started the server (startStore's
   * setControls), whatever allowReset says of changing them over HTTP. Default false.
   */
  controlsFromCode?: boolean;
}

/**
 * Throws ServerOptionsError (exit 2) for the first option that cannot work, before anything is
 * listened on or opened: there is nothing to release.
 */
export function checkServerOptions(options: PlantServerOptions): void {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // A bad origin is a usage error too.
  if (options.corsOrigins !== undefined) createCors(options.corsOrigins);
  if (options.tokens.length === 0) throw new ServerOptionsError('at least one access token is needed');
  const bad = options.tokens.find((token) => !isBearerToken(token));
  if (bad !== undefined)
    throw new ServerOptionsError(`an access token is not a bearer token: ${describeBadToken(bad)}`);
  if (options.metricsToken !== undefined) {
    if (options.metrics !== true) throw new ServerOptionsError('a metrics token needs the metrics turned on');
    if (!isBearerToken(options.metricsToken)) {
      throw new ServerOptionsError(
        'the metrics token has characters a bearer token cannot have (A-Z a-z 0-9 - . _ ~ + / and trailing =)',
      );
    }
  }
  if (options.logFormat !== undefined && !LOG_FORMATS.includes(options.logFormat)) {
    throw new ServerOptionsError(`log format must be one of ${LOG_FORMATS.join(', ')} (got ${options.logFormat})`);
  }
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new ServerOptionsError(`log level must be one of ${LOG_LEVELS.join(', ')} (got ${options.logLevel})`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) {
    throw new ServerOptionsError(`port must be a whole number from 0 to 65535 (got ${options.port})`);
  }
  const positive: Array<[string, number | undefined]> = [
    ['maxBodyBytes', options.maxBodyBytes],
    ['headersTimeoutMs', headersTimeout],
    ['requestTimeoutMs', requestTimeout],
    ['keepAliveTimeoutMs', options.keepAliveTimeoutMs],
    ['closeTimeoutMs', options.closeTimeoutMs],
  ];
  if (options.busyTimeoutMs !== undefined && !(Number.isInteger(options.busyTimeoutMs) && options.busyTimeoutMs >= 0)) {
    throw new ServerOptionsError(`busyTimeoutMs must be a whole number from 0 up (got ${options.busyTimeoutMs})`);
  }
  for (const [name, value] of positive) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new ServerOptionsError(`${name} must be a whole number above 0 (got ${value})`);
    }
  }
  if (headersTimeout > requestTimeout) {
    throw new ServerOptionsError(
      `headersTimeoutMs (${headersTimeout}) must not be longer than requestTimeoutMs (${requestTimeout})`,
    );
  }
}
