import { assertTokenTransportSafe, DEFAULT_BASE_URL, parseBaseUrl } from '../client/base-url.js';
import { ExitCode, InvalidInputError, PlantsError } from '../errors.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import type { ConfigStore } from './config-store.js';

/** In the order they are tried. */
export type Source = 'flag' | 'environment' | 'config' | 'default';

export interface Setting<T> {
  value: T;
  source: Source;
}

export interface SettingInputs {
  flagBaseUrl?: string | undefined;
  /** PLANTS_BASE_URL. */
  envBaseUrl?: string | undefined;
  /** PLANTS_TOKEN. */
  envToken?: string | undefined;
}

export function resolveBaseUrl(inputs: SettingInputs, config: Pick<ConfigStore, 'defaultBaseUrl'>): Setting<URL> {
  if (inputs.flagBaseUrl !== undefined) return { value: parseBaseUrl(inputs.flagBaseUrl), source: 'flag' };
  if (inputs.envBaseUrl !== undefined) {
    return {
      value: parseNamed(inputs.envBaseUrl, 'PLANTS_BASE_URL', [
        'PLANTS_BASE_URL (an environment variable) chooses the store of every command: set it to a URL such as http://127.0.0.1:4010, or unset it.',
      ]),
      source: 'environment',
    };
  }
  const stored = config.defaultBaseUrl;
  if (stored !== undefined) {
    return {
      value: parseNamed(stored, "the config's default store", ['`plants login --base-url URL` replaces it.']),
      source: 'config',
    };
  }
  return { value: parseBaseUrl(DEFAULT_BASE_URL), source: 'default' };
}

/** A bad one names where it came from. */
function parseNamed(text: string, where: string, hints: readonly string[]): URL {
  try {
    return parseBaseUrl(text);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(`${where}: ${error.message}`, { hints, cause: error });
  }
}

/** PLANTS_TOKEN, then the token stored for exactly that origin. */
export function resolveToken(
  origin: string,
  inputs: SettingInputs,
  config: Pick<ConfigStore, 'tokenFor'>,
): Setting<string> | undefined {
  if (inputs.envToken !== undefined) return { value: inputs.envToken, source: 'environment' };
  const stored = config.tokenFor(origin);
  return stored === undefined ? undefined : { value: stored, source: 'config' };
}

/** Exit 4 before anything is sent: a request without the token it should carry would only meet a 401. */
export class KeyringTokenMissingError extends PlantsError {
  readonly baseUrl: URL;
  readonly storeArgs: readonly string[];
  constructor(baseUrl: URL, storeArgs: readonly string[]) {
    super(
      `the token for ${baseUrl.origin} is kept in the OS keyring, but the keyring holds no entry for it (removed outside plants?)`,
      { exitCode: ExitCode.auth },
    );
    this.baseUrl = baseUrl;
    this.storeArgs = storeArgs;
  }
}

/**
 * A request's base URL, token and CA file. Refuses (exit 2) a token in clear text off this machine
 * unless `insecure`, and a stored or PLANTS_TOKEN token that cannot be a bearer token (here, not at
 * undici's header check, which would pass for a network failure).
 */
export function resolveStore(
  inputs: SettingInputs,
  config: Pick<ConfigStore, 'defaultBaseUrl' | 'tokenFor' | 'caCertFor' | 'storedIn'>,
  request: { insecure?: boolean; token?: string; caCert?: string | undefined; storeArgs?: readonly string[] },
) {
  const baseUrl = resolveBaseUrl(inputs, config).value;
  const { origin } = baseUrl;
  const token =
    request.token === undefined
      ? resolveToken(origin, inputs, config)
      : { value: request.token, source: 'flag' as const };
  if (token === undefined && config.storedIn(origin) === 'keyring') {
    throw new KeyringTokenMissingError(baseUrl, request.storeArgs ?? []);
  }
  if (token !== undefined) assertTokenTransportSafe(baseUrl, { insecure: request.insecure ?? false });
  if (token !== undefined && token.source !== 'flag' && !isBearerToken(token.value)) {
    const where = token.source === 'environment' ? 'PLANTS_TOKEN' : `the token stored for ${origin}`;
    throw new InvalidInputError(`${where} is not a valid bearer token: ${describeBadToken(token.value)}`);
  }
  const stored = request.caCert === undefined ? config.caCertFor(origin) : undefined;
  const caCert =
    request.caCert !== undefined
      ? { file: request.caCert, where: '--ca-cert' }
      : stored === undefined
        ? undefined
        : { file: stored, where: `the CA certificate \`plants login --ca-cert\` kept for ${origin}` };
  return { baseUrl, token, caCert };
}
