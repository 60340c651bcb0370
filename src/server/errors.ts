import { ExitCode, PlantsError } from '../errors.js';
import type { ErrorBody, NewPlant } from '../schema/plant.js';

// ---------------------------------------------------------------------------------------------
// Errors a request can end in. Each carries its HTTP status; the app's one error handler turns
// them into an Error body. Their messages are written for the client and so may be shown.
// Anything else thrown while handling a request is a 500 whose message is never shown.
// ---------------------------------------------------------------------------------------------

/** A request the server refuses on purpose: `status` and `message` go to the client as they are. */
export class HttpError extends Error {
  /** Extra response headers the status calls for (`Allow`, `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The Error body's `outcome`: `unknown` when the request may or may not have been applied. */
  readonly outcome: ErrorBody['outcome'];

  constructor(
    readonly status: number,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown; outcome?: ErrorBody['outcome'] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.headers = options.headers ?? {};
    this.outcome = options.outcome;
  }
}

/**
 * 401 with the RFC 6750 challenge. `invalidToken` adds `error="invalid_token"`, which the RFC
 * reserves for requests that did present a token: a request without one gets the bare challenge.
 */
export class UnauthorizedError extends HttpError {
  constructor(message: string, options: { invalidToken: boolean }) {
    const challenge = options.invalidToken ? 'Bearer realm="plants", error="invalid_token"' : 'Bearer realm="plants"';
    super(401, message, { headers: { 'www-authenticate': challenge } });
  }
}

/** 404: an unknown path, or (with a message of its own) a plant that is not there. */
export class NotFoundError extends HttpError {
  constructor(path: string, message = `no such path: ${path}`) {
    super(404, message);
  }
}

/**
 * 409: the id is taken. The stored plant stays as it was, and goes in the answer beside the Error
 * record when it could be read (`stored`), so that a client can tell its own earlier add from a
 * conflict without asking again (docs/serve.md, OpenAPI: Conflict).
 */
export class ConflictError extends HttpError {
  constructor(
    message: string,
    readonly stored?: NewPlant,
  ) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limit: number) {
    super(413, `request body is larger than ${limit} bytes`);
  }
}

/** 415: a content type, charset or content coding the server does not take. */
export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string, options: { headers?: Record<string, string> } = {}) {
    super(415, message, options);
  }
}

/** 501: a transfer coding other than chunked (RFC 9112 §6.1): the body cannot be read. */
export class NotImplementedError extends HttpError {
  constructor(message: string) {
    super(501, message);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors that stop the server from starting. `plants serve` reports the message (one line, no
// stack) and exits 2: each is something the user fixes in the command line or on the machine.
// ---------------------------------------------------------------------------------------------

/** Options that cannot work: no tokens, a token with characters a bearer token cannot have, bad limits. Exit 2. */
export class ServerOptionsError extends PlantsError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.usage });
  }
}

/** The server cannot listen on host:port: in use, no permission, no such address. Exit 2. */
export class ListenError extends PlantsError {
  constructor(message: string, options: { cause: unknown; hints?: readonly string[] }) {
    super(message, { exitCode: ExitCode.usage, cause: options.cause, hints: options.hints ?? [] });
  }
}
