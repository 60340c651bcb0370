import { ExitCode, PlantsError } from '../errors.js';
import type { ErrorBody } from '../schema/plant.js';

/**
 * The server answered, but not with a Plant. `body` is the Error record to show for it:
 * the server's own when it sent one, otherwise one made from the status and what was wrong
 * with the answer. `rawBody` is the exact text of any JSON body (an Error, a problem+json).
 */
export class ResponseError extends PlantsError {
  readonly status: number;
  readonly body: ErrorBody;
  readonly rawBody: string | undefined;
  /** How many times the request was sent before this answer. */
  attempts = 1;

  constructor(
    message: string,
    options: { status: number; body: ErrorBody; rawBody?: string; exitCode?: ExitCode; hints?: readonly string[] },
  ) {
    super(message, { exitCode: options.exitCode ?? ExitCode.serverError, hints: options.hints ?? [] });
    this.status = options.status;
    this.body = options.body;
    this.rawBody = options.rawBody;
  }
}

/** The server refused the token (401/403). Exit 4. */
export class AuthRejectedError extends ResponseError {}

/** The server did not answer: connection refused, DNS, TLS, reset, time-out. Exit 3. */
export class UnreachableError extends PlantsError {
  readonly url: string;
  /** How many times the request was sent before giving up. */
  attempts = 1;
  constructor(message: string, options: { url: string; cause?: unknown; hints?: readonly string[] }) {
    super(message, { exitCode: ExitCode.unreachable, cause: options.cause, hints: options.hints ?? [] });
    this.url = options.url;
  }
}
