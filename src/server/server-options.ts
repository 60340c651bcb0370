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
  host: string;
  /** 0 picks a free one (read it back from `port`). */
  port: number;
  corsOrigins?: readonly string[];
  tokens: readonly string[];
  /** One line per request and per internal error, without its newline; never a token or a body. */
  log?: (line: string, level: LogLevel) => void;
  logFormat?: LogFormat;
  logLevel?: LogLevel;
  /** Names this server in JSON log lines. Default `host:pid`. */
  instance?: string;
  /** The error behind each 500 (the client only gets "internal server error"). */
  onInternalError?: (error: unknown) => void;
  metrics?: boolean;
  /** Without it, a client on loopback reads /metrics with no token; with it, every scrape needs a token. */
  metricsToken?: string;
  /** Default 64 KiB. */
  maxBodyBytes?: number;
  /** Default 10 000. With TLS, the handshake must finish within this too. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** At close, requests in flight get this long to finish. */
  closeTimeoutMs?: number;
  tls?: { cert: string | Buffer; key: string | Buffer };
  seed?: Seed;
  allowReset?: boolean;
  delay?: DelayRange;
  faults?: readonly FaultRate[];
  faultSeed?: number;
  /** Default 1000 entries, 256 KiB. */
  journal?: { maxEntries?: number; maxBytes?: number };
  /** The delay and faults may be changed by startStore's setControls, whatever allowReset says. */
  controlsFromCode?: boolean;
}

/** Before anything is listened on or opened: there is nothing to release. */
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
