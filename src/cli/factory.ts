import type { Dispatcher } from 'undici';
import type { PlantClient } from '../client/plant-client.js';
import type { ConfigStore } from '../config/config-store.js';
import { resolveBaseUrl, resolveStore, type Setting, type SettingInputs } from '../config/settings.js';
import { DEFAULT_RETRIES } from './defaults.js';
import type { PlantsEnv } from './env.js';
import type { IOStreams } from './io-streams.js';
import type { RequestOptions } from './options.js';
import type { Output } from './render/output.js';

/**
 * Builds what commands need, lazily and in one place (after gh's cmdutil.Factory): the config
 * store, the HTTP dispatcher, the API client. Heavy modules (conf, undici, zod) are imported
 * only when a command first asks for something that needs them, so `--help` and `--version`
 * never pay for them. What a request may be sent to, and with which token, is the config's to
 * say (resolveStore); how, the client's. The streams (`io`) are the run's, made by the runner.
 */
export class Factory {
  /** `--profile`, when given (the runner sets it from the parsed flags). */
  profileFlag: string | undefined;
  #config: ConfigStore | undefined;
  #dispatcher: Dispatcher | undefined;

  constructor(
    readonly env: PlantsEnv,
    /** plants' own version, for the User-Agent. */
    readonly version: string,
    /** The streams of the run (the process's, or a test's); the output writes to its stdout and stderr. */
    readonly io: IOStreams,
    readonly output: Output,
  ) {}

  /** `--profile NAME` when the flag chose the profile, for a command line printed to carry on with. */
  get profileArgs(): string[] {
    return this.profileFlag === undefined ? [] : ['--profile', this.profileFlag];
  }

  /** What chose the profile: `--profile`, then PLANTS_PROFILE, else the default profile. */
  get profileSource(): 'flag' | 'environment' | 'default' {
    return this.profileFlag !== undefined ? 'flag' : this.env.profile !== undefined ? 'environment' : 'default';
  }

  /**
   * The config of the run's profile, opened once a run (`create`: login makes the profile); what
   * it warns of (a file others can read) is said then.
   */
  async config(options: { create?: boolean } = {}): Promise<ConfigStore> {
    if (this.#config === undefined) {
      const { ConfigStore, configFolder } = await import('../config/config-store.js');
      this.#config = ConfigStore.open({
        dir: await configFolder(this.env.configDir),
        profile: this.profileFlag ?? this.env.profile,
        create: options.create ?? false,
      });
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
   * The API client for the store the request flags choose, with its origin's token (or none: the
   * server then answers 401, exit 4). `connections`: most at once (a bulk add keeps this many
   * requests in flight); `token`: this one instead of the environment's or the config's (`login`
   * checks a new one); `attempts`: times a request is sent at most (default: once plus DEFAULT_RETRIES).
   */
  async plantClient(
    flags: RequestOptions,
    options: { connections?: number; token?: string; attempts?: number } = {},
  ): Promise<PlantClient> {
    const flagBaseUrl = flags['base-url'];
    const inputs = this.settingInputs(flagBaseUrl);
    const config = await this.config();
    if (options.token === undefined && inputs.envToken === undefined) {
      await config.readKeyring([resolveBaseUrl(inputs, config).value.origin]);
    }
    const caCert = flags['ca-cert'];
    const storeArgs = [
      ...this.profileArgs,
      ...(flagBaseUrl === undefined ? [] : ['--base-url', flagBaseUrl]),
      ...(caCert === undefined ? [] : ['--ca-cert', caCert]),
      ...(flags.insecure ? ['--insecure'] : []),
    ];
    const store = resolveStore(inputs, config, { insecure: flags.insecure, token: options.token, caCert, storeArgs });
    const { PlantClient } = await import('../client/plant-client.js');
    const ca =
      store.caCert === undefined
        ? undefined
        : await (await import('../client/ca-cert.js')).trustedCertificates(store.caCert);
    // One dispatcher a run (createAgent), keeping its connections alive across requests.
    if (this.#dispatcher === undefined) {
      const { createAgent } = await import('../client/undici-agent.js');
      this.#dispatcher = createAgent(store.baseUrl, {
        ca,
        connections: options.connections ?? 1,
        httpProxy: this.env.httpProxy ?? '',
        httpsProxy: this.env.httpsProxy ?? this.env.httpProxy ?? '',
        noProxy: this.env.noProxy ?? '',
      });
    }
    return new PlantClient({
      baseUrl: store.baseUrl,
      token: store.token?.value,
      tokenSource: store.token?.source === 'environment' ? 'environment' : 'config',
      // Reads and deletes are sent again like adds: a refused connection, a 429/503 with Retry-After.
      retry: { attempts: options.attempts ?? DEFAULT_RETRIES + 1 },
      dispatcher: this.#dispatcher,
      userAgent: `plants/${this.version} node/${process.version} ${process.platform}`,
      timeoutMs: flags.timeout * 1000,
      storeArgs,
    });
  }

  async close(): Promise<void> {
    if (this.#dispatcher === undefined) return;
    const { closeDispatcher } = await import('../client/undici-agent.js');
    await closeDispatcher(this.#dispatcher);
  }
}
