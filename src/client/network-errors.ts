import { formatBaseUrl } from './base-url.js';

// What an error from the network stack says, read through its chain of causes: the facts of a
// failure (NetworkFailure), and a sentence for them that names no flag or command.

/** An error and its causes, five at most. */
function* causes(error: unknown): Generator<Error> {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    yield current;
  }
}

/** The first Node or undici error code in the chain of causes. */
export function errorCode(error: unknown): string | undefined {
  for (const current of causes(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY') return code;
  }
  return undefined;
}

/** The connection was closed (or reset) before a whole answer arrived. */
export function isClosedConnection(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED';
}

/** Why a request got no answer: the facts, for a caller to put in its own words. */
export type NetworkFailure =
  /** The whole answer did not arrive within the time-out. */
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'refused' }
  /** The host name could not be resolved. */
  | { kind: 'dns' }
  /** The connection was closed (or reset) before a whole answer arrived. */
  | { kind: 'closed' }
  /** An http:// request met a port that speaks TLS. */
  | { kind: 'tls-port' }
  /** An https:// request met a port that does not speak TLS. */
  | { kind: 'not-tls' }
  /**
   * The server's certificate was refused, for OpenSSL's `code`; `names` are the names it holds
   * (for ERR_TLS_CERT_ALTNAME_INVALID, when node's error carries the certificate).
   */
  | { kind: 'certificate'; code: string; names: readonly string[] }
  /** The TLS handshake failed otherwise. */
  | { kind: 'tls'; code: string }
  /** The proxy answered `status` instead of opening a tunnel. */
  | { kind: 'proxy'; status: string }
  | { kind: 'connect-timeout' }
  | { kind: 'no-route' }
  /** The user interrupted the run before the answer arrived. */
  | { kind: 'interrupted' }
  | { kind: 'other'; code: string | undefined };

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

/** What kind of failure an error from undici or node is; never the library's own text. */
export function classifyNetworkFailure(error: unknown): NetworkFailure {
  const code = errorCode(error) ?? '';
  if (code === 'ECONNREFUSED') return { kind: 'refused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    return { kind: 'dns' };
  }
  if (isClosedConnection(error)) return { kind: 'closed' };
  if (certificateProblems[code] !== undefined) {
    return { kind: 'certificate', code, names: code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? certificateNames(error) : [] };
  }
  const text = [...causes(error)].map((cause) => cause.message).join(' ');
  if (/wrong version number|packet length too long|http request|unknown protocol/i.test(text)) {
    return { kind: 'not-tls' };
  }
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'EPROTO') {
    return { kind: 'tls', code };
  }
  const proxy = /Proxy response \((\d+)\)/.exec(text);
  if (proxy?.[1] !== undefined) return { kind: 'proxy', status: proxy[1] };
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect-timeout' };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { kind: 'no-route' };
  return { kind: 'other', code: code === '' ? undefined : code };
}

/** Why a request to `baseUrl` got no answer, as the end of a sentence (`cannot reach URL: …`). */
function describeNetworkFailure(failure: Exclude<NetworkFailure, { kind: 'timeout' }>, baseUrl: URL): string {
  switch (failure.kind) {
    case 'refused':
      return 'connection refused';
    case 'dns':
      return `the host name ${baseUrl.hostname} could not be resolved (DNS)`;
    case 'closed':
      return 'the connection was closed before a whole answer arrived';
    case 'tls-port':
      return 'the server speaks TLS (HTTPS) on this port, not plain HTTP';
    case 'not-tls':
      return 'the server does not speak TLS on this port';
    case 'certificate':
      return certificateProblems[failure.code] ?? '';
    case 'tls':
      return 'the TLS handshake failed';
    case 'proxy':
      return `the proxy answered ${failure.status} instead of opening a tunnel to it`;
    case 'connect-timeout':
      return 'the connection timed out';
    case 'no-route':
      return 'no route to the host';
    case 'interrupted':
      return 'interrupted before its answer arrived';
    case 'other':
      return failure.code === undefined ? 'the request failed' : `the request failed (${failure.code})`;
  }
}

/** The message of an UnreachableError: `cannot reach URL: why` (`no answer from URL within N s`). */
export function unreachableMessage(failure: NetworkFailure, baseUrl: URL): string {
  const base = formatBaseUrl(baseUrl);
  if (failure.kind === 'timeout') return `no answer from ${base} within ${failure.timeoutMs / 1000} s`;
  return `cannot reach ${base}: ${describeNetworkFailure(failure, baseUrl)}`;
}

/** The names a server's certificate holds (node's error carries the peer certificate). */
function certificateNames(error: unknown): string[] {
  let altNames: string | undefined;
  for (const current of causes(error)) {
    const cert = (current as { cert?: { subjectaltname?: unknown } }).cert;
    if (typeof cert?.subjectaltname === 'string') altNames = cert.subjectaltname;
  }
  return (altNames ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.+)$/.exec(entry)?.[1]?.trim())
    .filter((name): name is string => name !== undefined && name !== '');
}
