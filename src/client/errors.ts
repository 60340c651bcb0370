import { ExitCode, PlantsError } from '../errors.js';
import type { ErrorBody } from '../schema/plant.js';
import { formatBaseUrl } from './base-url.js';

// The client's errors carry facts, no hints: the CLI words them (src/cli/render/failure-hints.ts).

/**
 * The server answered, but not with what was asked for. `body` is the server's Error record, or one
 * made from the status; `rawBody` is the exact text of any JSON body (an Error, a problem+json).
 */
export class ResponseError extends PlantsError {
  readonly status: number;
  readonly body: ErrorBody;
  readonly rawBody: string | undefined;
  /** The base URL of the store that answered (absent for an error made from several answers). */
  readonly baseUrl: URL | undefined;
  readonly retryAfter: string | undefined;
  attempts = 1;
  /** How long the attempts took, waits between them included. */
  triedForMs = 0;
  /** A 409 met by a POST sent again after a dropped connection: perhaps the first attempt's doing. */
  afterRetry = false;
  /** The answer said `outcome: "unknown"`, or an earlier attempt was written and got no whole answer. */
  mayHaveBeenApplied = false;

  constructor(
    message: string,
    options: {
      status: number;
      body: ErrorBody;
      rawBody?: string | undefined;
      baseUrl?: URL | undefined;
      retryAfter?: string | undefined;
      exitCode?: ExitCode;
    },
  ) {
    super(message, { exitCode: options.exitCode ?? ExitCode.serverError });
    this.status = options.status;
    this.body = options.body;
    this.rawBody = options.rawBody;
    this.baseUrl = options.baseUrl;
    this.retryAfter = options.retryAfter;
  }
}

/** The server refused the token (401/403). Exit 4. */
export class AuthRejectedError extends ResponseError {
  readonly tokenSource: 'environment' | 'config' | undefined;
  constructor(
    message: string,
    options: {
      status: 401 | 403;
      body: ErrorBody;
      rawBody?: string | undefined;
      baseUrl: URL;
      tokenSource: 'environment' | 'config' | undefined;
      storeArgs?: readonly string[] | undefined;
    },
  ) {
    super(message, { ...options, exitCode: ExitCode.auth });
    this.tokenSource = options.tokenSource;
    this.storeArgs = options.storeArgs ?? [];
  }
  readonly storeArgs: readonly string[];
  declare readonly status: 401 | 403;
  declare readonly baseUrl: URL;
}

/** A success whose body the schema refuses. Exit 1, like an answer with an error status. */
export class UnexpectedBodyError extends ResponseError {
  /** `a Plant`, `a list of plants`. */
  readonly expected: string;
  /** `an empty body instead of a Plant`. */
  readonly received: string;
  constructor(options: { status: number; expected: string; received: string; baseUrl: URL }) {
    super(`the server answered ${options.status} but ${options.received}`, {
      status: options.status,
      body: { error: options.status, message: `response is not ${options.expected}: ${options.received}` },
      baseUrl: options.baseUrl,
    });
    this.expected = options.expected;
    this.received = options.received;
  }
}

/** A Link header sending the next page to another origin: not followed, since the token would go too. Exit 1. */
export class CrossOriginPageError extends ResponseError {
  readonly nextOrigin: string;
  constructor(options: { nextOrigin: string; baseUrl: URL }) {
    super(`the server's next page is on another origin (${options.nextOrigin}); not following it`, {
      status: 200,
      body: { error: 200, message: 'next page on another origin' },
      baseUrl: options.baseUrl,
    });
    this.nextOrigin = options.nextOrigin;
  }
}

/** The server did not answer: connection refused, DNS, TLS, reset, time-out. Exit 3. */
export class UnreachableError extends PlantsError {
  /** The store's base URL; absent for a request cut short by the user rather than the network. */
  readonly baseUrl: URL | undefined;
  readonly failure: NetworkFailure;
  attempts = 1;
  /** An attempt was sent and its answer never came whole: the server may have applied it. */
  sentNoAnswer = false;
  readonly storeArgs: readonly string[];
  constructor(
    message: string,
    options: {
      baseUrl?: URL | undefined;
      failure: NetworkFailure;
      cause?: unknown;
      storeArgs?: readonly string[] | undefined;
    },
  ) {
    super(message, { exitCode: ExitCode.unreachable, cause: options.cause });
    this.baseUrl = options.baseUrl;
    this.failure = options.failure;
    this.storeArgs = options.storeArgs ?? [];
  }
}

/** May have been applied (no whole answer, or `outcome: "unknown"`), and reading back did not settle it. Exit 3. */
export class NoAnswerError extends UnreachableError {
  readonly id: bigint;
  /** The store has no GET /plants/{id}. */
  readonly noReadBack: boolean;
  declare readonly cause: UnreachableError | ResponseError;
  constructor(
    id: bigint,
    cause: UnreachableError | ResponseError,
    options: { noReadBack?: boolean; done?: 'added' | 'deleted'; storeArgs?: readonly string[] } = {},
  ) {
    const answered = cause instanceof ResponseError;
    super(
      `sent, ${answered ? 'outcome unknown' : 'no answer'}: plant ${id} may or may not have been ${options.done ?? 'added'} (${cause.message})`,
      {
        baseUrl: cause.baseUrl,
        failure: answered ? { kind: 'other', code: undefined } : cause.failure,
        cause,
        storeArgs: answered ? options.storeArgs : cause.storeArgs,
      },
    );
    this.id = id;
    this.noReadBack = options.noReadBack ?? false;
    this.attempts = cause.attempts;
    this.sentNoAnswer = true;
  }
}

/** An id the store holds with other data than was sent; `rawBody` has both, `sent_plant` and `stored_plant`. */
export class ConflictError extends ResponseError {
  readonly sentPlant: string;
  readonly storedPlant: string;
  constructor(message: string, options: { body: ErrorBody; sentPlant: string; storedPlant: string; attempts: number }) {
    const rawBody = `{"error":409,"message":${JSON.stringify(message)},"sent_plant":${options.sentPlant},"stored_plant":${options.storedPlant}}`;
    super(message, { status: 409, body: options.body, rawBody });
    this.sentPlant = options.sentPlant;
    this.storedPlant = options.storedPlant;
    this.attempts = options.attempts;
  }
}

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

export function isClosedConnection(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED';
}

/** Why a request got no answer: the facts, for a caller to put in its own words. */
export type NetworkFailure =
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'refused' }
  | { kind: 'dns' }
  /** Closed (or reset) before a whole answer arrived. */
  | { kind: 'closed' }
  /** An http:// request met a port that speaks TLS. */
  | { kind: 'tls-port' }
  /** An https:// request met a port that does not speak TLS. */
  | { kind: 'not-tls' }
  /** OpenSSL's `code`; `names`, those the certificate holds (for ERR_TLS_CERT_ALTNAME_INVALID). */
  | { kind: 'certificate'; code: string; names: readonly string[] }
  | { kind: 'tls'; code: string }
  | { kind: 'proxy'; status: string }
  | { kind: 'connect-timeout' }
  | { kind: 'no-route' }
  /** The user interrupted the run before the answer arrived. */
  | { kind: 'interrupted' }
  | { kind: 'other'; code: string | undefined };

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

/** Why a request got no answer, as the end of a sentence (`cannot reach URL: …`), by kind. */
const failureWords: {
  [K in Exclude<NetworkFailure['kind'], 'timeout'>]:
    | string
    | ((failure: Extract<NetworkFailure, { kind: K }>, baseUrl: URL) => string);
} = {
  refused: 'connection refused',
  dns: (_, baseUrl) => `the host name ${baseUrl.hostname} could not be resolved (DNS)`,
  closed: 'the connection was closed before a whole answer arrived',
  'tls-port': 'the server speaks TLS (HTTPS) on this port, not plain HTTP',
  'not-tls': 'the server does not speak TLS on this port',
  certificate: (failure) => certificateProblems[failure.code] ?? '',
  tls: 'the TLS handshake failed',
  proxy: (failure) => `the proxy answered ${failure.status} instead of opening a tunnel to it`,
  'connect-timeout': 'the connection timed out',
  'no-route': 'no route to the host',
  interrupted: 'interrupted before its answer arrived',
  other: (failure) => (failure.code === undefined ? 'the request failed' : `the request failed (${failure.code})`),
};

/** `cannot reach URL: why`, or `no answer from URL within N s`. */
export function unreachableMessage(failure: NetworkFailure, baseUrl: URL): string {
  const base = formatBaseUrl(baseUrl);
  if (failure.kind === 'timeout') return `no answer from ${base} within ${failure.timeoutMs / 1000} s`;
  const words = failureWords[failure.kind] as string | ((failure: NetworkFailure, baseUrl: URL) => string);
  return `cannot reach ${base}: ${typeof words === 'string' ? words : words(failure, baseUrl)}`;
}

/** The names the peer certificate (carried by node's error) holds. */
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
