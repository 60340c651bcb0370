import path from 'node:path';
import type { Dispatcher } from 'undici';
import { assertTokenTransportSafe, isLoopbackHost } from '../client/base-url.js';
import type { PlantClient } from '../client/plant-client.js';
import type { ConfigStore } from '../config/config-store.js';
import { resolveBaseUrl, resolveToken, type Setting, type SettingInputs } from '../config/settings.js';
import { InvalidInputError } from '../errors.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import { DEFAULT_RETRIES } from './defaults.js';
import type { PlantsEnv } from './env.js';
import type { IOStreams } from './io-streams.js';
import type { Output } from './render/output.js';

export interface FactoryOptions {
  env: PlantsEnv;
  /** plants' own version, for the User-Agent. */
  version: string;
  /** The streams of the run (the process's, or a test's); the output writes to its stdout and stderr. */
  io: IOStreams;
  output: Output;
  /**
   * A run of one command, after which the process ends (the fast route): V8's baseline-only
   * flag for undici's WebAssembly HTTP parser is put back when it closes (see
   * wasm-compiler-flags.ts), and close() leaves the client's idle connections to the exit
   * (PipeliningDispatcher's leaveIdleToExit).
   */
  shortLived?: boolean;
}

export interface ClientRequest {
  /** `--base-url`, when given. */
  flagBaseUrl?: string | undefined;
  /** `--insecure`: allow a token over plain http to a host that is not loopback. */
  insecure?: boolean;
  /** `--timeout` in seconds. */
  timeoutSeconds?: number;
  /** Most connections to the store at once (bulk adds keep this many requests in flight). */
  connections?: number;
  /** Send this token instead of the one the environment or the config gives (`login` checks a new one). */
  token?: string;
  /** Times a request is sent at most (default: once plus DEFAULT_RETRIES). */
  attempts?: number;
  /** `--ca-cert`: a PEM file to trust the store's TLS certificate with (else the one login kept for the origin). */
  caCert?: string | undefined;
}

/**
 * Builds what commands need, lazily and in one place (after gh's cmdutil.Factory): the config
 * store, the HTTP dispatcher, the API client. Heavy modules (conf, undici, zod) are imported
 * only when a command first asks for something that needs them, so `--help` and `--version`
 * never pay for them. The streams (`io`) are the run's, made once at the edges.
 */
export class Factory {
  readonly env: PlantsEnv;
  readonly version: string;
  readonly io: IOStreams;
  readonly output: Output;
  readonly #shortLived: boolean;
  #config: ConfigStore | undefined;
  #dispatcher: Dispatcher | undefined;

  constructor(options: FactoryOptions) {
    this.env = options.env;
    this.version = options.version;
    this.io = options.io;
    this.output = options.output;
    this.#shortLived = options.shortLived ?? false;
  }

  get userAgent(): string {
    return `plants/${this.version} node/${process.version} ${process.platform}`;
  }

  /** The folder of config.json: PLANTS_CONFIG_DIR, else the user's config folder (XDG on Linux). */
  async configDir(): Promise<string> {
    if (this.env.configDir !== undefined) return this.env.configDir;
    const { default: envPaths } = await import('env-paths');
    const dir = envPaths('plants', { suffix: '' }).config;
    // With HOME empty the platform's folder comes out relative: the current folder, a git
    // checkout say, is no place for tokens.
    if (!path.isAbsolute(dir)) {
      throw new InvalidInputError('no folder for the config: HOME is not set (or not an absolute path)', {
        hints: ['Set HOME, or PLANTS_CONFIG_DIR to the folder to keep config.json in.'],
      });
    }
    return dir;
  }

  async config(): Promise<ConfigStore> {
    if (this.#config === undefined) {
      const { ConfigStore } = await import('../config/config-store.js');
      this.#config = ConfigStore.open({ dir: await this.configDir() });
      // Once a run: the config is opened once, here.
      for (const warning of this.#config.warnings) this.output.info(this.output.errorColor.yellow(warning));
    }
    return this.#config;
  }

  settingInputs(flagBaseUrl?: string): SettingInputs {
    return { flagBaseUrl, envBaseUrl: this.env.baseUrl, envToken: this.env.token };
  }

  async baseUrl(flagBaseUrl?: string): Promise<Setting<URL>> {
    return resolveBaseUrl(this.settingInputs(flagBaseUrl), await this.config());
  }

  /**
   * One dispatcher per process, honouring HTTP_PROXY, HTTPS_PROXY and NO_PROXY, keeping its
   * connections alive across requests.
   */
  async dispatcher(connections = 1, options: { direct?: boolean; ca?: string[] } = {}): Promise<Dispatcher> {
    if (this.#dispatcher === undefined) {
      const { createDirectAgent, createProxyAgent } = await import('../client/undici-agent.js');
      const { ca } = options;
      const shortLived = this.#shortLived;
      // Loopback never goes through a proxy (as NO_PROXY conventionally holds it): a proxy
      // would read a plain-http token that was only allowed because it never left the machine.
      this.#dispatcher = options.direct
        ? createDirectAgent({ connections, ca, shortLived })
        : await createProxyAgent({
            ca,
            shortLived,
            connections,
            httpProxy: this.env.httpProxy ?? '',
            httpsProxy: this.env.httpsProxy ?? this.env.httpProxy ?? '',
            noProxy: this.env.noProxy ?? '',
          });
    }
    return this.#dispatcher;
  }

  /**
   * The API client for the resolved base URL, with that origin's token (or none: the server
   * then answers 401, which is exit 4). Refuses (exit 2) to send a token in clear text off
   * this machine.
   */
  async plantClient(request: ClientRequest): Promise<PlantClient> {
    const config = await this.config();
    const inputs = this.settingInputs(request.flagBaseUrl);
    const baseUrl = resolveBaseUrl(inputs, config).value;
    assertTokenTransportSafe(baseUrl, { insecure: request.insecure ?? false });
    const token =
      request.token === undefined
        ? resolveToken(baseUrl.origin, inputs, config)
        : { value: request.token, source: 'flag' as const };
    if (token !== undefined && !isBearerToken(token.value)) {
      // Caught here, not by undici's header check, which would pass for a network failure.
      const where = token.source === 'environment' ? 'PLANTS_TOKEN' : `the token stored for ${baseUrl.origin}`;
      throw new InvalidInputError(`${where} is not a valid bearer token: ${describeBadToken(token.value)}`);
    }
    const { PlantClient } = await import('../client/plant-client.js');
    return new PlantClient({
      baseUrl,
      token: token?.value,
      tokenSource: token?.source === 'environment' ? 'environment' : 'config',
      // Reads and deletes are sent again like adds: a refused connection, a 429/503 with Retry-After.
      retry: { attempts: request.attempts ?? DEFAULT_RETRIES + 1 },
      dispatcher: await this.dispatcher(request.connections, {
        direct: isLoopbackHost(baseUrl.hostname),
        ca: await this.trustedCertificates(baseUrl.origin, request.caCert),
      }),
      userAgent: this.userAgent,
      timeoutMs: (request.timeoutSeconds ?? 30) * 1000,
      storeArgs: [
        ...(request.flagBaseUrl === undefined ? [] : ['--base-url', request.flagBaseUrl]),
        ...(request.caCert === undefined ? [] : ['--ca-cert', request.caCert]),
        ...(request.insecure === true ? ['--insecure'] : []),
      ],
    });
  }

  /**
   * The certificates to trust for `origin`: Node's list plus the PEM file of `--ca-cert`, else the
   * one `login --ca-cert` kept for the origin; undefined (Node's default) with neither. A file
   * that cannot be read or holds no certificate is exit 2, naming where it came from.
   */
  async trustedCertificates(origin: string, flagFile: string | undefined): Promise<string[] | undefined> {
    const stored = flagFile === undefined ? (await this.config()).caCertFor(origin) : undefined;
    const file = flagFile ?? stored;
    if (file === undefined) return undefined;
    const { readCaCertificate } = await import('../client/ca-cert.js');
    const pem = readCaCertificate(
      file,
      flagFile !== undefined ? '--ca-cert' : `the CA certificate \`plants login --ca-cert\` kept for ${origin}`,
    );
    const { rootCertificates } = await import('node:tls');
    return [...rootCertificates, pem];
  }

  async close(): Promise<void> {
    if (this.#dispatcher === undefined) return;
    // Error.stackTraceLimit is the process's: only a run that ends the process touches it, so
    // that runs side by side in one process (in-process tests) never leave it lowered.
    if (!this.#shortLived) {
      await this.#dispatcher.close();
      return;
    }
    // undici's close() ends in destroy(), whose error Node's streams ask for the stack of (to
    // keep it), and a stack frame in the bundle makes V8 index every line of the bundle first.
    // Errors made while the connections close carry no frames: none of them is ever shown.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      await this.#dispatcher.close();
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    (await import('../client/wasm-compiler-flags.js')).restoreWasmCompilerFlags();
  }
}
