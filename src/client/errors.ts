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
  /** A 409 met by a POST sent again after a dropped connection: perhaps the first attempt's doing. */
  afterRetry = false;

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
  /**
   * An attempt was sent and its answer never came whole (the connection dropped, the time ran
   * out, the body was cut): the server may have applied it.
   */
  sentNoAnswer = false;
  /** The flags that chose the store (PlantClientOptions.storeArgs), for a command a hint suggests. */
  readonly storeArgs: readonly string[];
  constructor(
    message: string,
    options: { url: string; cause?: unknown; hints?: readonly string[]; storeArgs?: readonly string[] | undefined },
  ) {
    super(message, { exitCode: ExitCode.unreachable, cause: options.cause, hints: options.hints ?? [] });
    this.url = options.url;
    this.storeArgs = options.storeArgs ?? [];
  }
}

/** An argument as a shell takes it back: as it is when it needs no quoting, else in single quotes. */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * A POST that was sent and got no whole answer, which reading the plant back could not settle:
 * the plant may or may not have been added. Exit 3, like any missing answer.
 */
export class NoAnswerError extends UnreachableError {
  constructor(id: bigint, cause: UnreachableError, hints: readonly string[] = []) {
    // The look-up goes to the same store: with the --base-url (and --ca-cert) the add was given.
    const lookUp = ['plants', 'get', String(id), ...cause.storeArgs.map(shellWord)].join(' ');
    super(`sent, no answer: plant ${id} may or may not have been added (${cause.message})`, {
      url: cause.url,
      cause,
      hints: [`\`${lookUp}\` shows whether it is in the store.`, ...hints, ...cause.hints],
      storeArgs: cause.storeArgs,
    });
    this.attempts = cause.attempts;
    this.sentNoAnswer = true;
  }
}

/**
 * A 409 (or a missing answer) for an id the store holds with other data than was sent: a real
 * conflict. `rawBody` is the Error with both versions, `sent_plant` and `stored_plant`.
 */
export class ConflictError extends ResponseError {
  readonly sentPlant: string;
  readonly storedPlant: string;
  constructor(message: string, options: { body: ErrorBody; sentPlant: string; storedPlant: string; attempts: number }) {
    const rawBody = `{"error":409,"message":${JSON.stringify(message)},"sent_plant":${options.sentPlant},"stored_plant":${options.storedPlant}}`;
    super(message, {
      status: 409,
      body: options.body,
      rawBody,
      hints: [`stored: ${options.storedPlant}`, `sent:   ${options.sentPlant}`],
    });
    this.sentPlant = options.sentPlant;
    this.storedPlant = options.storedPlant;
    this.attempts = options.attempts;
  }
}
