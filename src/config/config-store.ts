import { accessSync, chmodSync, constants, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type Conf from 'conf';
import { InvalidInputError } from '../errors.js';

/** config.json. Each map is keyed by origin (`https://host:port`), as gh keys tokens by host. */
interface ConfigData {
  defaultBaseUrl?: string;
  tokens?: Record<string, string>;
  /** The PEM file (absolute path) of `login --ca-cert`. */
  caCerts?: Record<string, string>;
  /** The account its token is kept under in the OS keyring (then `tokens` holds none for it). */
  keyring?: Record<string, string>;
}

export interface ConfigStoreOptions {
  /** Holds config.json (and profiles/NAME.json); created 0700. */
  dir: string;
  /** Default: `default`, config.json itself. */
  profile?: string | undefined;
  /** Make the profile if it does not exist (`login`); otherwise an unknown profile is exit 2. */
  create?: boolean;
}

/** The OS keyring, or the config file's path. */
export type TokenStorage = 'keyring' | (string & {});

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * `dir` (PLANTS_CONFIG_DIR), else the user's config folder (XDG on Linux). With HOME empty that comes
 * out relative: the current folder, a git checkout say, is no place for tokens (exit 2).
 */
export async function configFolder(dir: string | undefined): Promise<string> {
  if (dir !== undefined) return dir;
  const { default: envPaths } = await import('env-paths');
  const folder = envPaths('plants', { suffix: '' }).config;
  if (!path.isAbsolute(folder)) {
    throw new InvalidInputError('no folder for the config: HOME is not set (or not an absolute path)', {
      hints: ['Set HOME, or PLANTS_CONFIG_DIR to the folder to keep config.json in.'],
    });
  }
  return folder;
}

/** The config file exists but cannot be read as ours. Exit 2: the user must mend it. */
export class ConfigFileError extends InvalidInputError {}

const SHARED_BITS = 0o077;

/**
 * config.json: conf writes it (atomically, 0600) into a folder made (or tightened to) 0700 here.
 * conf is loaded only to write: the commands that only read the plain JSON never load it.
 */
export class ConfigStore {
  readonly path: string;
  readonly profile: string;
  /** For stderr, once: a file holding tokens that others may open (as ssh warns of a private key). */
  readonly warnings: readonly string[];
  readonly #dir: string;
  #data: ConfigData;
  #conf: Conf<ConfigData> | undefined;
  /** By origin. */
  readonly #fromKeyring = new Map<string, string>();

  private constructor(profile: string, file: string, data: ConfigData, warnings: readonly string[]) {
    this.profile = profile;
    this.#dir = path.dirname(file);
    this.path = file;
    this.#data = data;
    this.warnings = warnings;
  }

  /** Nothing is created until something is stored; a bad file or an unknown profile is exit 2. */
  static open(options: ConfigStoreOptions): ConfigStore {
    const profile = options.profile ?? 'default';
    if (!PROFILE_NAME.test(profile)) {
      throw new InvalidInputError(
        `the profile name ${JSON.stringify(profile.slice(0, 100))} is not one: letters, digits, - and _ (64 at most)`,
      );
    }
    const file =
      profile === 'default'
        ? path.join(options.dir, 'config.json')
        : path.join(options.dir, 'profiles', `${profile}.json`);
    const read = readConfigFile(file);
    if (read === undefined && profile !== 'default' && options.create !== true) {
      throw new InvalidInputError(`no profile "${profile}": the profiles are ${profiles(options.dir).join(', ')}`, {
        hints: [`\`plants login --profile ${profile}\` makes it.`],
      });
    }
    if (read === undefined) return new ConfigStore(profile, file, {}, []);
    const warnings: string[] = [];
    const holdsTokens = Object.keys(read.data.tokens ?? {}).length > 0;
    if (holdsTokens && (read.mode & SHARED_BITS) !== 0 && process.platform !== 'win32') {
      const mode = (read.mode & 0o777).toString(8).padStart(4, '0');
      warnings.push(
        `warning: the config file ${file} holds tokens and other users can open it (mode ${mode}); ` +
          `the next change writes it back 0600, or run: chmod 600 ${file}`,
      );
    }
    return new ConfigStore(profile, file, read.data, warnings);
  }

  get defaultBaseUrl(): string | undefined {
    return this.#data.defaultBaseUrl;
  }

  /** In the file, or in the keyring once readKeyring has read it. */
  tokenFor(origin: string): string | undefined {
    const tokens = this.#tokens();
    return Object.hasOwn(tokens, origin) ? tokens[origin] : this.#fromKeyring.get(origin);
  }

  origins(): string[] {
    return [...new Set([...Object.keys(this.#tokens()), ...Object.keys(this.#keyring())])].sort();
  }

  storedIn(origin: string): TokenStorage | undefined {
    if (Object.hasOwn(this.#keyring(), origin)) return 'keyring';
    return Object.hasOwn(this.#tokens(), origin) ? this.path : undefined;
  }

  /** The keyring's tokens of `origins`, for tokenFor: its binding is loaded only then. KeyringError: exit 4. */
  async readKeyring(origins: readonly string[]): Promise<void> {
    const keyring = this.#keyring();
    const wanted = origins.filter((origin) => Object.hasOwn(keyring, origin) && !this.#fromKeyring.has(origin));
    if (wanted.length === 0) return;
    const { readKeyring } = await import('./keyring.js');
    for (const origin of wanted) {
      const token = await readKeyring(keyring[origin] as string);
      if (token !== undefined) this.#fromKeyring.set(origin, token);
    }
  }

  async setDefaultBaseUrl(value: string): Promise<void> {
    await this.#change((data) => ({ ...data, defaultBaseUrl: value }));
  }

  /** In the OS keyring where one answers (unless `insecureStorage`), else in the file, saying why. */
  async setToken(
    origin: string,
    token: string,
    options: { defaultBaseUrl?: string | undefined; insecureStorage: boolean },
  ): Promise<{ storedIn: TokenStorage; why?: string }> {
    const { writeKeyring, deleteKeyring } = await import('./keyring.js');
    const account = `${origin} (${this.path})`;
    const kept = options.insecureStorage
      ? { why: '--insecure-storage chose the file' }
      : await writeKeyring(account, token);
    const tokens = omit(this.#data.tokens, origin);
    const keyring = omit(this.#data.keyring, origin);
    const before = this.#keyring()[origin];
    // In the keyring: the file keeps no token for the origin (a `tokens` key only if it held one).
    const change: ConfigData =
      kept === true
        ? { ...(this.storedIn(origin) === this.path ? { tokens } : {}), keyring: { ...keyring, [origin]: account } }
        : { tokens: { ...tokens, [origin]: token } };
    if (kept !== true && before !== undefined) change.keyring = keyring;
    if (options.defaultBaseUrl !== undefined) change.defaultBaseUrl = options.defaultBaseUrl;
    await this.#change((data) => ({ ...data, ...change }));
    this.#fromKeyring.set(origin, token);
    // The token kept in the keyring before, now in the file: the old one is not left behind there.
    if (kept !== true && before !== undefined) await deleteKeyring(before).catch(() => false);
    return kept === true ? { storedIn: 'keyring' } : { storedIn: this.path, why: kept.why };
  }

  /** False when there was no token; with `clearDefault` the default base URL goes too, in one write. */
  async forget(origin: string, options: { clearDefault: boolean }): Promise<boolean> {
    const account = this.#keyring()[origin];
    const removed = Object.hasOwn(this.#tokens(), origin) || account !== undefined;
    if (!removed && !(options.clearDefault && this.#data.defaultBaseUrl !== undefined)) return false;
    // From the keyring first: a keyring that does not answer leaves the config as it was (exit 4).
    if (account !== undefined) await (await import('./keyring.js')).deleteKeyring(account);
    const without = (data: ConfigData): ConfigData => {
      const kept: ConfigData = { ...data };
      if (options.clearDefault) delete kept.defaultBaseUrl;
      if (kept.tokens !== undefined) kept.tokens = omit(kept.tokens, origin);
      if (kept.keyring !== undefined) kept.keyring = omit(kept.keyring, origin);
      return kept;
    };
    await this.#change(without);
    this.#fromKeyring.delete(origin);
    return removed;
  }

  caCertFor(origin: string): string | undefined {
    const files = this.#data.caCerts ?? {};
    return Object.hasOwn(files, origin) ? files[origin] : undefined;
  }

  async setCaCert(origin: string, file: string): Promise<void> {
    const caCerts = { ...(this.#data.caCerts ?? {}), [origin]: file };
    await this.#change((data) => ({ ...data, caCerts }));
  }

  #tokens(): Record<string, string> {
    return this.#data.tokens ?? {};
  }

  #keyring(): Record<string, string> {
    return this.#data.keyring ?? {};
  }

  /** Checked by `login` before it tries the token on the store. */
  ensureWritable(): void {
    try {
      ensurePrivateDir(this.#dir);
      accessSync(this.#dir, constants.W_OK);
    } catch (error) {
      throw this.#unusableDir(error);
    }
  }

  /** conf reads its file again first, as its own set() would: what another run wrote stays. */
  async #change(update: (data: ConfigData) => ConfigData): Promise<void> {
    try {
      ensurePrivateDir(this.#dir);
      if (this.#conf === undefined) {
        const { default: Conf } = await import('conf');
        this.#conf = new Conf<ConfigData>({
          cwd: this.#dir,
          configName: path.basename(this.path, '.json'),
          projectName: 'plants',
          configFileMode: 0o600,
          accessPropertiesByDotNotation: false,
        });
      }
      this.#conf.store = update(this.#conf.store);
    } catch (error) {
      throw this.#unusableDir(error);
    }
    this.#data = update(this.#data);
  }

  #unusableDir(error: unknown): InvalidInputError {
    return new InvalidInputError(`cannot use the config folder ${this.#dir}: ${describeFileError(error)}`, {
      cause: error,
      hints: ['Give it to your user, or choose another folder with PLANTS_CONFIG_DIR.'],
    });
  }
}

/** Undefined when there is no file yet. */
function readConfigFile(file: string): { data: ConfigData; mode: number } | undefined {
  let text: string;
  let mode: number;
  try {
    text = readFileSync(file, 'utf8');
    mode = statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the fault, and a hand-edited file may hold a raw token.
    throw unreadable(file, new Error('it is not valid JSON', { cause: error }));
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw unreadable(file, new Error('it does not hold a JSON object'));
  }
  const problem = wrongType(data as Record<string, unknown>);
  if (problem !== undefined) throw unreadable(file, new Error(problem));
  return { data: data as ConfigData, mode };
}

/** The first known key with a wrong type; unknown keys are left alone (a newer plants may have written them). */
function wrongType(data: Record<string, unknown>): string | undefined {
  if (Object.hasOwn(data, 'defaultBaseUrl') && typeof data.defaultBaseUrl !== 'string') {
    return `"defaultBaseUrl" must be a string (a URL), not ${typeName(data.defaultBaseUrl)}`;
  }
  return (
    wrongStringMap(data, 'tokens', 'an object of origin to token') ??
    wrongStringMap(data, 'caCerts', 'an object of origin to a PEM file') ??
    wrongStringMap(data, 'keyring', 'an object of origin to a keyring account')
  );
}

function wrongStringMap(data: Record<string, unknown>, key: string, what: string): string | undefined {
  if (!Object.hasOwn(data, key)) return undefined;
  const map = data[key];
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    return `"${key}" must be ${what}, not ${typeName(map)}`;
  }
  for (const [origin, value] of Object.entries(map)) {
    if (typeof value !== 'string') {
      return `"${key}" of ${JSON.stringify(origin.slice(0, 100))} must be a string, not ${typeName(value)}`;
    }
  }
  return undefined;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function unreadable(file: string, cause: unknown): ConfigFileError {
  return new ConfigFileError(`the config file ${file} cannot be read: ${(cause as Error).message}`, {
    cause,
    hints: ['Fix it by hand, or delete it and run `plants login` again.'],
  });
}

function omit(map: Record<string, string> | undefined, key: string): Record<string, string> {
  const { [key]: _left, ...rest } = map ?? {};
  return rest;
}

/** `default`, then profiles/NAME.json, sorted. */
function profiles(dir: string): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(path.join(dir, 'profiles'));
  } catch {
    // No profiles/ folder: the default profile alone.
  }
  const named = files.filter((file) => file.endsWith('.json')).map((file) => file.slice(0, -'.json'.length));
  return ['default', ...named.filter((name) => PROFILE_NAME.test(name) && name !== 'default').sort()];
}

/** Never the library's text, which names system calls. */
function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    EPERM: 'operation not permitted (it may belong to another user)',
    EACCES: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    ENOTDIR: 'a part of the path is not a folder',
    EEXIST: 'a file of that name is in the way',
  };
  return (code !== undefined ? words[code] : undefined) ?? code ?? String(error);
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const { mode } = statSync(dir);
  // A shared sticky folder such as /tmp is not ours to close; the file itself stays 0600.
  if ((mode & 0o1000) !== 0) return;
  if ((mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
