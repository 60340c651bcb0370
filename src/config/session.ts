import { DEFAULT_BASE_URL, formatBaseUrl } from '../client/base-url.js';
import { InvalidInputError } from '../errors.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import type { ConfigStore, TokenStorage } from './config-store.js';
import { resolveBaseUrl, resolveToken, type SettingInputs, type Source } from './settings.js';

export interface LoginResult {
  origin: string;
  baseUrl: string;
  /** True when this login made the base URL the default. */
  madeDefault: boolean;
  /** The config's default store after the login (the local store when it names none). */
  defaultBaseUrl: string;
  /** Where the token went, and why the file when it went there. */
  storedIn: TokenStorage;
  why?: string;
}

/**
 * Stores a token for the origin of `baseUrl`. The default store changes only at the first login
 * to a `--base-url` (no default and no token stored yet) or when asked (`makeDefault`, login
 * --default), as gh switches accounts only with `gh auth switch`: a second store never takes over.
 */
export async function login(
  config: ConfigStore,
  options: { token: string; baseUrl: URL; fromFlag: boolean; makeDefault: boolean; insecureStorage: boolean },
): Promise<LoginResult> {
  const token = options.token;
  if (!isBearerToken(token)) throw new InvalidInputError(`token refused: ${describeBadToken(token)}`);
  const origin = options.baseUrl.origin;
  const baseUrl = formatBaseUrl(options.baseUrl);
  const before = config.defaultBaseUrl ?? DEFAULT_BASE_URL;
  const first = options.fromFlag && config.defaultBaseUrl === undefined && config.origins().length === 0;
  const madeDefault = (options.makeDefault || first) && baseUrl !== before;
  const stored = await config.setToken(origin, token, {
    defaultBaseUrl: madeDefault ? baseUrl : undefined,
    insecureStorage: options.insecureStorage,
  });
  return { origin, baseUrl, madeDefault, defaultBaseUrl: madeDefault ? baseUrl : before, ...stored };
}

/**
 * Forgets the token of the origin of `baseUrl`, from where it is kept (the keyring or the file);
 * `removed` is false when none was stored. In the default profile the default base URL the config
 * holds goes too when it is of that origin: a default left with no token would only fail
 * (`defaultRestored` is then the default that applies again). A named profile keeps its store.
 */
export async function logout(
  config: ConfigStore,
  baseUrl: URL,
): Promise<{ origin: string; removed: boolean; defaultRestored?: string }> {
  const origin = baseUrl.origin;
  const stored = config.defaultBaseUrl;
  const clearDefault =
    config.profile === 'default' && stored !== undefined && URL.canParse(stored) && new URL(stored).origin === origin;
  const removed = await config.forget(origin, { clearDefault });
  return clearDefault ? { origin, removed, defaultRestored: DEFAULT_BASE_URL } : { origin, removed };
}

/** Shows at most the last 4 characters, and never more than a quarter of the token. */
export function maskToken(token: string): string {
  const shown = Math.min(4, Math.floor(token.length / 4));
  return `${'*'.repeat(8)}${shown === 0 ? '' : token.slice(-shown)}`;
}

export interface OriginStatus {
  origin: string;
  /** The masked token, or null when none. */
  token: string | null;
  tokenSource: Source | null;
  isDefault: boolean;
  /** The CA certificate file `login --ca-cert` kept for the origin, when there is one. */
  caCert?: string;
  /** Where its stored token lives: `keyring`, or the config file's path; null when none is stored. */
  storedIn: TokenStorage | null;
}

export interface Status {
  /** The profile in use, and what chose it. */
  profile: string;
  profileSource: Exclude<Source, 'config'>;
  configFile: string;
  defaultBaseUrl: string;
  defaultBaseUrlSource: Source;
  defaultOrigin: string;
  /** Whether a request to the default origin would carry a token. */
  authenticated: boolean;
  origins: OriginStatus[];
}

/** Everything `plants status` shows; the token is only ever there masked. */
export function describeStatus(
  config: ConfigStore,
  inputs: SettingInputs,
  profileSource: Status['profileSource'] = 'default',
): Status {
  const baseUrl = resolveBaseUrl(inputs, config);
  const defaultOrigin = baseUrl.value.origin;
  const origins = new Set([defaultOrigin, ...config.origins()]);
  const rows = [...origins].map((origin): OriginStatus => {
    const token = resolveToken(origin, origin === defaultOrigin ? inputs : {}, config);
    const caCert = config.caCertFor(origin);
    return {
      origin,
      token: token === undefined ? null : maskToken(token.value),
      tokenSource: token?.source ?? null,
      isDefault: origin === defaultOrigin,
      ...(caCert === undefined ? {} : { caCert }),
      storedIn: config.storedIn(origin) ?? null,
    };
  });
  return {
    profile: config.profile,
    profileSource,
    configFile: config.path,
    defaultBaseUrl: formatBaseUrl(baseUrl.value),
    defaultBaseUrlSource: baseUrl.source,
    defaultOrigin,
    authenticated: rows.some((row) => row.isDefault && row.token !== null),
    origins: rows,
  };
}
