import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
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
 * The user's plants config. Writes are atomic (a new file 0600, synced, renamed over the old
 * one) into a folder made 0700; a folder that already exists with looser modes is tightened,
 * since it holds tokens. Reads are a plain JSON read. Both are written here rather than with
 * `conf`: loading conf and its JSON-schema validator cost a `plants login` or `logout` more than
 * twice Node's whole start-up (callgrind: login --with-token 563M instructions with conf, against
 * 84M for `node -e 0`), for one small JSON file.
 */
export class ConfigStore {
  readonly path: string;
  readonly #dir: string;
  #data: ConfigData;

  private constructor(dir: string, file: string, data: ConfigData) {
    this.#dir = dir;
    this.path = file;
    this.#data = data;
  }

  /** Opens the config in `dir` (nothing is created until something is stored). */
  static open(options: ConfigStoreOptions): ConfigStore {
    const file = path.join(options.dir, 'config.json');
    return new ConfigStore(options.dir, file, readConfigFile(file));
  }

  get defaultBaseUrl(): string | undefined {
    const value = this.#data.defaultBaseUrl;
    return typeof value === 'string' ? value : undefined;
  }

  tokenFor(origin: string): string | undefined {
    const tokens = this.#tokens();
    const token = Object.hasOwn(tokens, origin) ? tokens[origin] : undefined;
    return typeof token === 'string' ? token : undefined;
  }

  /** Origins that have a token stored, sorted. */
  origins(): string[] {
    return Object.keys(this.#tokens()).sort();
  }

  async setDefaultBaseUrl(value: string): Promise<void> {
    await this.#write('defaultBaseUrl', value);
  }

  async setToken(origin: string, token: string): Promise<void> {
    await this.#write('tokens', { ...this.#tokens(), [origin]: token });
  }

  /** Forgets the token of an origin; false when there was none. */
  async deleteToken(origin: string): Promise<boolean> {
    const tokens = this.#tokens();
    if (!Object.hasOwn(tokens, origin)) return false;
    const { [origin]: _removed, ...rest } = tokens;
    await this.#write('tokens', rest);
    return true;
  }

  #tokens(): Record<string, string> {
    const tokens = this.#data.tokens;
    return typeof tokens === 'object' && tokens !== null ? tokens : {};
  }

  async #write<K extends keyof ConfigData>(key: K, value: NonNullable<ConfigData[K]>): Promise<void> {
    ensurePrivateDir(this.#dir);
    const data = { ...this.#data, [key]: value };
    // Tab-indented, as conf wrote it: a file from an earlier version is rewritten the same way.
    writeFileAtomically(this.path, JSON.stringify(data, undefined, '\t'));
    this.#data = data;
  }
}

/** The whole file or nothing: a reader (or a crash) never sees a half-written config. */
function writeFileAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function readConfigFile(file: string): ConfigData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw unreadable(file, error);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw unreadable(file, error);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw unreadable(file, new Error('it does not hold a JSON object'));
  }
  return data as ConfigData;
}

function unreadable(file: string, cause: unknown): ConfigFileError {
  return new ConfigFileError(`the config file ${file} cannot be read: ${(cause as Error).message}`, {
    cause,
    hints: ['Fix it by hand, or delete it and run `plants login` again.'],
  });
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const { mode } = statSync(dir);
  // A shared sticky folder such as /tmp is not ours to close; the file itself stays 0600.
  if ((mode & 0o1000) !== 0) return;
  if ((mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
