import { DEFAULT_BASE_URL, parseBaseUrl } from '../client/base-url.js';
import { InvalidInputError } from '../errors.js';
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
