import { DEFAULT_BASE_URL, formatBaseUrl, isLoopbackHost } from './base-url.js';
import { errorCode, isClosedConnection } from './network-errors.js';
import { parseRetryAfter } from './retry-policy.js';

// What a failure means to the person running plants, and what to try: the CLI's words, kept
// apart from the client's transport and answers (they move to the CLI's rendering once the
// client's errors carry only facts).

/** OpenSSL's verdicts on a certificate, as a sentence. */
const certificateProblems: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed, and not trusted here',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain ends in a self-signed certificate that is not trusted here',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not signed by an authority trusted here',
  UNABLE_TO_GET_ISSUER_CERT: 'its TLS certificate is not signed by an authority trusted here',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate is not signed by an authority trusted here',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  CERT_NOT_YET_VALID: 'its TLS certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
  CERT_REVOKED: 'its TLS certificate has been revoked',
};

/**
 * Why a request got no answer, as a sentence and what to try: never the library's own text,
 * which for TLS is OpenSSL's internals (error codes, source paths).
 */
export function describeNetworkFailure(error: unknown, baseUrl: URL): { reason: string; hints: string[] } {
  const code = errorCode(error) ?? '';
  const text = causeMessages(error);
  if (code === 'ECONNREFUSED') {
    const port = baseUrl.port || (baseUrl.protocol === 'https:' ? 443 : 80);
    const hints = !isLoopbackHost(baseUrl.hostname)
      ? []
      : formatBaseUrl(baseUrl) === DEFAULT_BASE_URL
        ? ['Is the local store running? Start it with `plants serve`.']
        : isIpv6Host(baseUrl.hostname)
          ? // serve listens on 127.0.0.1 unless told otherwise: an IPv6 address never reaches it.
            [
              `plants serve listens on 127.0.0.1 unless --host says otherwise: use ${formatBaseUrl(withHost(baseUrl, '127.0.0.1'))}, or start it with \`plants serve --host ::1 --port ${port}\`.`,
            ]
          : [`Is a store listening there? \`plants serve --port ${port}\` starts one.`];
    return { reason: 'connection refused', hints };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    return {
      reason: `the host name ${baseUrl.hostname} could not be resolved (DNS)`,
      hints: ['Check the host in the base URL (--base-url, PLANTS_BASE_URL, or the default `plants status` shows).'],
    };
  }
  if (isClosedConnection(error)) {
    return { reason: 'the connection was closed before a whole answer arrived', hints: [] };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // The chain was trusted (the name is checked after it): --ca-cert would change nothing.
    return { reason: certificateProblems[code] ?? '', hints: [hostNameHint(error, baseUrl)] };
  }
  const problem = certificateProblems[code];
  if (problem !== undefined) {
    return {
      reason: problem,
      hints: [
        "Trust it with --ca-cert FILE (its certificate, or its authority's, as PEM); `plants login --ca-cert FILE` keeps it for this origin.",
      ],
    };
  }
  if (/wrong version number|packet length too long|http request|unknown protocol/i.test(text)) {
    const plain = new URL(formatBaseUrl(baseUrl));
    plain.protocol = 'http:';
    return {
      reason: 'the server does not speak TLS on this port',
      hints: [`If it is a plain-HTTP store, try ${formatBaseUrl(plain)}`],
    };
  }
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO') {
    return { reason: 'the TLS handshake failed', hints: [] };
  }
  const proxy = /Proxy response \((\d+)\)/.exec(text);
  if (proxy !== null) return { reason: `the proxy answered ${proxy[1]} instead of opening a tunnel to it`, hints: [] };
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return { reason: 'the connection timed out', hints: [] };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { reason: 'no route to the host', hints: [] };
  return { reason: code === '' ? 'the request failed' : `the request failed (${code})`, hints: [] };
}

/** A URL's host as an IPv6 address (`[::1]`, as URL keeps it). */
function isIpv6Host(hostname: string): boolean {
  return hostname.startsWith('[');
}

/** The same URL with another host. */
function withHost(baseUrl: URL, host: string): URL {
  const url = new URL(formatBaseUrl(baseUrl));
  url.hostname = host;
  return url;
}

/**
 * What to do about a certificate made for other names: the names it holds (node's error
 * carries the peer certificate), and the URL with the first of them.
 */
function hostNameHint(error: unknown, baseUrl: URL): string {
  let altNames: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const cert = (current as { cert?: { subjectaltname?: unknown } }).cert;
    if (typeof cert?.subjectaltname === 'string') altNames = cert.subjectaltname;
  }
  const names = (altNames ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry)?.[1]?.trim())
    .filter((name): name is string => name !== undefined && name !== '');
  const host = baseUrl.hostname.replace(/^\[|\]$/g, '');
  if (names.length === 0) {
    return `Its certificate's names do not include ${host}: reach the store by a name its certificate holds, or give it a certificate made for ${host}.`;
  }
  // A wildcard (*.example.com) is no host to connect to; an IPv6 address goes in brackets.
  const usable = names.find((name) => !name.includes('*'));
  const suggestion =
    usable === undefined ? '' : ` (${formatBaseUrl(withHost(baseUrl, usable.includes(':') ? `[${usable}]` : usable))})`;
  return `Its certificate names ${names.join(', ')}, not ${host}: use one of those in the URL${suggestion}, or give the store a certificate made for ${host}.`;
}

function causeMessages(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    parts.push(current.message);
  }
  return parts.join(' ');
}

/** What to do about a refused token, naming where it came from (PLANTS_TOKEN cannot be mended by a login). */
export function refusedTokenHint(
  baseUrl: URL,
  source: 'environment' | 'config' | undefined,
  status: 401 | 403 = 401,
): string {
  const login = loginCommand(baseUrl);
  if (source === 'environment') {
    return `The token sent was PLANTS_TOKEN's (it comes before any stored token): set it to a valid token, or unset it to use the one \`${login}\` stores.`;
  }
  if (source === undefined) return `No token is stored for ${baseUrl.origin}: run \`${login}\` or set PLANTS_TOKEN.`;
  if (status === 401 && isLoopbackHost(baseUrl.hostname)) {
    // A store on this machine is most often plants serve, restarted with a token of its own.
    return `This store may have started with a new token since the login (plants serve makes one up each start with --memory, else keeps it beside its file, as <file>.token): its banner shows the token, and \`${login} --with-token\` stores it.`;
  }
  return `Check the token: \`${login}\` stores a new one.`;
}

/** `plants login`, with `--base-url` when the store is not the default one. */
export function loginCommand(baseUrl: URL): string {
  const base = formatBaseUrl(baseUrl);
  return base === DEFAULT_BASE_URL ? 'plants login' : `plants login --base-url ${base}`;
}

/**
 * A base URL ending in /plants (`http://127.0.0.1:4010/plants`) sends to /plants/plants: `POST`
 * meets 405, `GET /plants/plants` reads `plants` as an id (400). Say to drop it.
 */
export function doubledPathHint(status: number, baseUrl: URL): string[] {
  if (status !== 400 && status !== 404 && status !== 405) return [];
  if (!/\/plants$/i.test(baseUrl.pathname)) return [];
  const base = new URL(formatBaseUrl(baseUrl));
  base.pathname = base.pathname.replace(/\/plants$/i, '');
  return [
    `The base URL ends in /plants, which plants adds itself (this asked for ${baseUrl.pathname}/plants…): drop it, and use ${formatBaseUrl(base)}`,
  ];
}

/** A 429 or 503 that says when to come back: say so (it was already waited for where that was allowed). */
export function busyHint(status: number, retryAfter: string | undefined): string[] {
  if (status !== 429 && status !== 503) return [];
  const ms = parseRetryAfter(retryAfter);
  return ms === undefined
    ? ['The store is busy or down for now; try again later.']
    : [`The store is busy; it asks to wait ${Math.ceil(ms / 1000)} s before trying again (Retry-After).`];
}
