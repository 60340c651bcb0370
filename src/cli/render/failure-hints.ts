import {
  ClearTextTokenError,
  CredentialsInUrlError,
  DEFAULT_BASE_URL,
  formatBaseUrl,
  isLoopbackHost,
} from '../../client/base-url.js';
import {
  AuthRejectedError,
  ConflictError,
  type NetworkFailure,
  NoAnswerError,
  ResponseError,
  UnreachableError,
} from '../../client/errors.js';
import { parseRetryAfter } from '../../client/retry-policy.js';
import { KeyringTokenMissingError } from '../../config/settings.js';
import type { PlantsError } from '../../errors.js';

// The CLI's words (its commands and flags) for the facts the client's errors carry.

export function failureHints(error: PlantsError): readonly string[] {
  const said = factHints(error);
  return said.length === 0 ? error.hints : [...error.hints, ...said];
}

function factHints(error: PlantsError): readonly string[] {
  if (error instanceof NoAnswerError) return [...lookUpHints(error), ...factHints(error.cause)];
  if (error instanceof UnreachableError) return unreachableHints(error.failure, error.baseUrl);
  if (error instanceof AuthRejectedError) {
    return [refusedTokenHint(error.baseUrl, error.tokenSource, error.status, error.storeArgs)];
  }
  if (error instanceof ClearTextTokenError) {
    return ['Pass --insecure to send it over plain http anyway (anyone on the network can read it).'];
  }
  if (error instanceof KeyringTokenMissingError) {
    return [`\`${loginCommand(error.baseUrl, error.storeArgs)}\` stores it again.`];
  }
  if (error instanceof CredentialsInUrlError) return ['Keep the token with `plants login` (or PLANTS_TOKEN) instead.'];
  if (error instanceof ConflictError) return [`stored: ${error.storedPlant}`, `sent:   ${error.sentPlant}`];
  if (error instanceof ResponseError) {
    return [...busyHint(error), ...(error.baseUrl === undefined ? [] : doubledPathHint(error.status, error.baseUrl))];
  }
  return [];
}

/** How to look for a plant sent with no answer, at the same store. */
export function lookUpHints(error: NoAnswerError): string[] {
  const lookUp = ['plants', 'get', String(error.id), ...error.storeArgs.map(shellWord)].join(' ');
  return [
    `\`${lookUp}\` shows whether it is in the store.`,
    ...(error.noReadBack ? ['The store cannot be read back (no GET /plants/{id}).'] : []),
  ];
}

export function unreachableHints(failure: NetworkFailure, baseUrl: URL | undefined): string[] {
  if (failure.kind === 'timeout') return ['Raise the limit with --timeout SECONDS.'];
  if (baseUrl === undefined) return [];
  switch (failure.kind) {
    case 'refused':
      return refusedHints(baseUrl);
    case 'dns':
      return ['Check the host in the base URL (--base-url, PLANTS_BASE_URL, or the default `plants status` shows).'];
    case 'tls-port':
      return [`Use ${changed(baseUrl, { protocol: 'https:' })}`];
    case 'not-tls':
      return [`If it is a plain-HTTP store, try ${changed(baseUrl, { protocol: 'http:' })}`];
    case 'certificate':
      // The chain was trusted when the name is wrong (the name is checked after it): --ca-cert would change nothing.
      return failure.code === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? [hostNameHint(failure.names, baseUrl)]
        : [
            "Trust it with --ca-cert FILE (its certificate, or its authority's, as PEM); `plants login --ca-cert FILE` keeps it for this origin.",
          ];
    default:
      return [];
  }
}

/** A refused connection on this machine: most often plants serve, not started or on another address. */
function refusedHints(baseUrl: URL): string[] {
  if (!isLoopbackHost(baseUrl.hostname)) return [];
  if (formatBaseUrl(baseUrl) === DEFAULT_BASE_URL) return ['Is the local store running? Start it with `plants serve`.'];
  const port = baseUrl.port || (baseUrl.protocol === 'https:' ? 443 : 80);
  if (baseUrl.hostname.startsWith('[')) {
    // IPv6 never reaches serve on 127.0.0.1, its default.
    return [
      `plants serve listens on 127.0.0.1 unless --host says otherwise: use ${changed(baseUrl, { hostname: '127.0.0.1' })}, or start it with \`plants serve --host ::1 --port ${port}\`.`,
    ];
  }
  return [`Is a store listening there? \`plants serve --port ${port}\` starts one.`];
}

function changed(baseUrl: URL, parts: Partial<Pick<URL, 'protocol' | 'hostname' | 'pathname'>>): string {
  return formatBaseUrl(Object.assign(new URL(formatBaseUrl(baseUrl)), parts));
}

function hostNameHint(names: readonly string[], baseUrl: URL): string {
  const host = baseUrl.hostname.replace(/^\[|\]$/g, '');
  if (names.length === 0) {
    return `Its certificate's names do not include ${host}: reach the store by a name its certificate holds, or give it a certificate made for ${host}.`;
  }
  // A wildcard (*.example.com) is no host to connect to.
  const usable = names.find((name) => !name.includes('*'));
  const suggestion =
    usable === undefined ? '' : ` (${changed(baseUrl, { hostname: usable.includes(':') ? `[${usable}]` : usable })})`;
  return `Its certificate names ${names.join(', ')}, not ${host}: use one of those in the URL${suggestion}, or give the store a certificate made for ${host}.`;
}

/** What to do about a refused token, naming where it came from (a login cannot mend PLANTS_TOKEN). */
export function refusedTokenHint(
  baseUrl: URL,
  source: 'environment' | 'config' | undefined,
  status: 401 | 403 = 401,
  storeArgs: readonly string[] = [],
): string {
  const login = loginCommand(baseUrl, storeArgs);
  if (source === 'environment') {
    return `The token sent was PLANTS_TOKEN's (it comes before any stored token): set it to a valid token, or unset it to use the one \`${login}\` stores.`;
  }
  if (source === undefined) return `No token is stored for ${baseUrl.origin}: run \`${login}\` or set PLANTS_TOKEN.`;
  if (status === 401 && isLoopbackHost(baseUrl.hostname)) {
    return `This store may have started with a new token since the login (plants serve makes one up each start with --memory, else keeps it beside its file, as <file>.token): its banner shows the token, and \`${login} --with-token\` stores it.`;
  }
  return `Check the token: \`${login}\` stores a new one.`;
}

/** `plants login` with the command's store arguments, so that it logs in where the command went. */
export function loginCommand(baseUrl: URL, storeArgs: readonly string[] = []): string {
  const base = formatBaseUrl(baseUrl);
  const rest: string[] = [];
  for (let at = 0; at < storeArgs.length; at++) {
    const arg = storeArgs[at] as string;
    if (arg === '--base-url') at++;
    else rest.push(shellWord(arg));
  }
  return ['plants login', ...(base === DEFAULT_BASE_URL ? [] : [`--base-url ${shellWord(base)}`]), ...rest].join(' ');
}

/** A base URL ending in /plants sends to /plants/plants (405 for POST, 400 for GET: `plants` is no id). */
export function doubledPathHint(status: number, baseUrl: URL): string[] {
  if (status !== 400 && status !== 404 && status !== 405) return [];
  if (!/\/plants$/i.test(baseUrl.pathname)) return [];
  const base = changed(baseUrl, { pathname: baseUrl.pathname.replace(/\/plants$/i, '') });
  return [
    `The base URL ends in /plants, which plants adds itself (this asked for ${baseUrl.pathname}/plants…): drop it, and use ${base}`,
  ];
}

/** A 429 or 503 (a database away is not "busy"): the tries already made, or when to come back. */
function busyHint({ status, retryAfter, attempts, triedForMs }: ResponseError): string[] {
  if (status !== 429 && status !== 503) return [];
  const cause = status === 429 ? 'The store is busy (429)' : 'The store is unavailable for now (503)';
  if (attempts > 1) {
    return [
      `${cause}: tried ${attempts} times over ${(triedForMs / 1000).toFixed(1)} s; --retries N tries more often, or try again later.`,
    ];
  }
  const ms = parseRetryAfter(retryAfter);
  return ms === undefined
    ? [`${cause}; try again later.`]
    : [`${cause}; it asks to wait ${Math.ceil(ms / 1000)} s before trying again (Retry-After).`];
}

/** An argument as a shell takes it back, quoted only when it needs it. */
export function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
