import { DEFAULT_BASE_URL, formatBaseUrl } from '../client/base-url.js';
import { InvalidInputError } from '../errors.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import type { ConfigStore } from './config-store.js';
import { resolveBaseUrl, resolveToken, type SettingInputs, type Source } from './settings.js';

/**
 * The default store changes only at the first login to a `--base-url` or when asked (`makeDefault`),
 * as gh switches accounts only with `gh auth switch`: a second store never takes over.
 */
export async function login(
  config: ConfigStore,
  options: { token: string; baseUrl: URL; fromFlag: boolean; makeDefault: boolean; insecureStorage: boolean },
) {
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
 * In the default profile, a default base URL of that origin goes too: left with no token it would
 * only fail. A named profile keeps its store.
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

export type Status = ReturnType<typeof describeStatus>;

/** Everything `plants status` shows; the token is only ever there masked. */
export function describeStatus(
  config: ConfigStore,
  inputs: SettingInputs,
  profileSource: Exclude<Source, 'config'> = 'default',
) {
  const baseUrl = resolveBaseUrl(inputs, config);
  const defaultOrigin = baseUrl.value.origin;
  const origins = new Set([defaultOrigin, ...config.origins()]);
  const rows = [...origins].map((origin) => {
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
