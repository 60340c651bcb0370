import { ExitCode, PlantsError } from '../errors.js';
import type { ErrorBody, NewPlant } from '../schema/plant.js';

/** `status` and `message` go to the client as they are; anything else thrown is a 500 that tells nothing. */
export class HttpError extends Error {
  readonly headers: Readonly<Record<string, string>>;
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

/** RFC 6750 reserves `error="invalid_token"` for requests that did present a token. */
export class UnauthorizedError extends HttpError {
  constructor(message: string, options: { invalidToken: boolean }) {
    const challenge = options.invalidToken ? 'Bearer realm="plants", error="invalid_token"' : 'Bearer realm="plants"';
    super(401, message, { headers: { 'www-authenticate': challenge } });
  }
}

export class NotFoundError extends HttpError {
  constructor(path: string, message = `no such path: ${path}`) {
    super(404, message);
  }
}

/** `stored` lets a client tell its own earlier add from a conflict without asking again. */
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

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string, options: { headers?: Record<string, string> } = {}) {
    super(415, message, options);
  }
}

export class NotImplementedError extends HttpError {
  constructor(message: string) {
    super(501, message);
  }
}

// Errors that stop the server from starting: each is something the user fixes, so exit 2.

export class ServerOptionsError extends PlantsError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.usage });
  }
}

export class ListenError extends PlantsError {
  constructor(message: string, options: { cause: unknown; hints?: readonly string[] }) {
    super(message, { exitCode: ExitCode.usage, cause: options.cause, hints: options.hints ?? [] });
  }
}
