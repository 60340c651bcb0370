import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { InvalidInputError } from '../errors.js';

/** What is kept in config.json. Tokens are keyed by origin (`https://host:port`), like gh keys them by host. */
interface ConfigData {
  /** The base URL used when neither `--base-url` nor PLANTS_BASE_URL is given. */
  defaultBaseUrl?: string;
  /** origin → its token. */
  tokens?: Record<string, string>;
}

export interface ConfigStoreOptions {
  /** Folder holding config.json; created 0700. */
  dir: string;
}

/** Thrown when the config file exists but cannot be read as ours. Exit 2: the user must mend it. */
export class ConfigFileError extends InvalidInputError {}

/**
 * The user's plants config over `conf`: atomic writes, file 0600, folder 0700.
 * A folder that already exists with looser modes is tightened to 0700, since it holds tokens.
 */
export class ConfigStore {
  readonly path: string;
  readonly #conf: Conf<ConfigData>;

  constructor(options: ConfigStoreOptions) {
    ensurePrivateDir(options.dir);
    try {
      this.#conf = new Conf<ConfigData>({
        cwd: options.dir,
        configName: 'config',
        projectName: 'plants',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
      });
    } catch (error) {
      throw new ConfigFileError(
        `the config file ${path.join(options.dir, 'config.json')} cannot be read: ${(error as Error).message}`,
        { cause: error, hints: ['Fix it by hand, or delete it and run `plants login` again.'] },
      );
    }
    this.path = this.#conf.path;
  }

  get defaultBaseUrl(): string | undefined {
    const value = this.#conf.get('defaultBaseUrl');
    return typeof value === 'string' ? value : undefined;
  }

  set defaultBaseUrl(value: string) {
    this.#conf.set('defaultBaseUrl', value);
  }

  tokenFor(origin: string): string | undefined {
    const token = this.#tokens()[origin];
    return typeof token === 'string' ? token : undefined;
  }

  setToken(origin: string, token: string): void {
    this.#conf.set('tokens', { ...this.#tokens(), [origin]: token });
  }

  /** Forgets the token of an origin; false when there was none. */
  deleteToken(origin: string): boolean {
    const tokens = this.#tokens();
    if (!(origin in tokens)) return false;
    const { [origin]: _removed, ...rest } = tokens;
    this.#conf.set('tokens', rest);
    return true;
  }

  /** Origins that have a token stored, sorted. */
  origins(): string[] {
    return Object.keys(this.#tokens()).sort();
  }

  #tokens(): Record<string, string> {
    const tokens = this.#conf.get('tokens');
    return typeof tokens === 'object' && tokens !== null ? tokens : {};
  }
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const { mode } = statSync(dir);
  // A shared sticky folder such as /tmp is not ours to close; the file itself stays 0600.
  if ((mode & 0o1000) !== 0) return;
  if ((mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
