import { assertTokenTransportSafe, DEFAULT_BASE_URL, parseBaseUrl } from '../client/base-url.js';
import { ExitCode, InvalidInputError, PlantsError } from '../errors.js';
import { describeBadToken, isBearerToken } from '../schema/token.js';
import type { ConfigStore } from './config-store.js';

/** Where a setting's value came from, in the order they are tried. */
export type Source = 'flag' | 'environment' | 'config' | 'default';

export interface Setting<T> {
  value: T;
  source: Source;
}

export interface SettingInputs {
  /** `--base-url`, when given. */
  flagBaseUrl?: string | undefined;
  /** PLANTS_BASE_URL. */
  envBaseUrl?: string | undefined;
  /** PLANTS_TOKEN. */
  envToken?: string | undefined;
}

/** flag, then environment, then config, then the default `http://127.0.0.1:4010`. */
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

/** A base URL from somewhere other than --base-url: a bad one names where it came from. */
function parseNamed(text: string, where: string, hints: readonly string[]): URL {
  try {
    return parseBaseUrl(text);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(`${where}: ${error.message}`, { hints, cause: error });
  }
}

/** The token for one origin: PLANTS_TOKEN, then the token stored for exactly that origin. */
export function resolveToken(
  origin: string,
  inputs: SettingInputs,
  config: Pick<ConfigStore, 'tokenFor'>,
): Setting<string> | undefined {
  if (inputs.envToken !== undefined) return { value: inputs.envToken, source: 'environment' };
  const stored = config.tokenFor(origin);
  return stored === undefined ? undefined : { value: stored, source: 'config' };
}

/**
 * The config says the origin's token is in the OS keyring, and the keyring holds no entry for it
 * (removed by another program, or a keyring wiped). Exit 4, as with no token, before anything is
 * sent: a request without the token it should carry would only meet a 401.
 */
export class KeyringTokenMissingError extends PlantsError {
  readonly baseUrl: URL;
  /** The command's store arguments (PlantClientOptions.storeArgs), for the login line of its hint. */
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
 * The store of a request: its base URL (resolveBaseUrl), its token and its CA file. Refuses
 * (exit 2) to send a token, when there is one, in clear text to a host that is not this machine unless `insecure`
 * (ClearTextTokenError), and a token of PLANTS_TOKEN or the config that cannot be a bearer token
 * (caught here, not by undici's header check, which would pass for a network failure). The CA
 * file is `--ca-cert`, else the one `login --ca-cert` kept for the origin.
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
  // With no token for the origin there is nothing to keep from the network: the request goes as asked.
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
  // token: the one given, else PLANTS_TOKEN, else the stored one; caCert: none for Node's list.
  return { baseUrl, token, caCert };
}
