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
 * Builds what commands need, lazily and in one place (after gh's cmdutil.Factory): conf, undici
 * and zod are imported only when a command first needs them, so `--help` never pays for them.
 */
export class Factory {
  /** `--profile`, set by the runner. */
  profileFlag: string | undefined;
  #config: ConfigStore | undefined;
  #dispatcher: Dispatcher | undefined;

  constructor(
    readonly env: PlantsEnv,
    readonly version: string,
    readonly io: IOStreams,
    readonly output: Output,
  ) {}

  /** `--profile NAME` when the flag chose the profile, for a command line printed to carry on with. */
  get profileArgs(): string[] {
    return this.profileFlag === undefined ? [] : ['--profile', this.profileFlag];
  }

  get profileSource(): 'flag' | 'environment' | 'default' {
    return this.profileFlag !== undefined ? 'flag' : this.env.profile !== undefined ? 'environment' : 'default';
  }

  /** The config of the run's profile, opened once a run (`create`: login makes the profile). */
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
   * server then answers 401). `token`: this one instead (`login` checks a new one).
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
    // One dispatcher a run, keeping its connections alive across requests.
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
