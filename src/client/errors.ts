import { ExitCode, PlantsError } from '../errors.js';
import type { ErrorBody } from '../schema/plant.js';
import type { NetworkFailure } from './network-errors.js';

// The client's errors carry the facts of a failure (what failed, where, with which status or
// code, whether the request may have been applied); a caller words them for its own users
// (the CLI: src/cli/render/failure-hints.ts). They carry no hints of their own.

/**
 * The server answered, but not with what was asked for. `body` is the Error record to show for
 * it: the server's own when it sent one, otherwise one made from the status and what was wrong
 * with the answer. `rawBody` is the exact text of any JSON body (an Error, a problem+json).
 */
export class ResponseError extends PlantsError {
  readonly status: number;
  readonly body: ErrorBody;
  readonly rawBody: string | undefined;
  /** The base URL of the store that answered (absent for an error made from several answers). */
  readonly baseUrl: URL | undefined;
  /** The answer's Retry-After header, as sent. */
  readonly retryAfter: string | undefined;
  /** How many times the request was sent before this answer. */
  attempts = 1;
  /** How long those tries took, waits between them included. */
  triedForMs = 0;
  /** A 409 met by a POST sent again after a dropped connection: perhaps the first attempt's doing. */
  afterRetry = false;
  /**
   * The request may have been applied all the same: the answer said its outcome is unknown (the
   * Error's `outcome: "unknown"`), or an earlier attempt was written and got no whole answer.
   */
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
  /** Where the token sent came from; undefined when none was sent. */
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
  /** PlantClientOptions.storeArgs, carried for the caller (the client never reads them). */
  readonly storeArgs: readonly string[];
  declare readonly status: 401 | 403;
  declare readonly baseUrl: URL;
}

/**
 * A success whose body is not what was asked for (a Plant, a list of plants): the server
 * answered, but the schema refuses the answer. Exit 1, like an answer with an error status.
 */
export class UnexpectedBodyError extends ResponseError {
  /** What was asked for: `a Plant`, `a list of plants`. */
  readonly expected: string;
  /** What came instead, in a few words (`an empty body instead of a Plant`). */
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

/**
 * A page whose Link header sends the next page to another origin: not followed, since the token
 * would go there too. Exit 1.
 */
export class CrossOriginPageError extends ResponseError {
  /** The origin the next page is on. */
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
  /** What kind of failure it was. */
  readonly failure: NetworkFailure;
  /** How many times the request was sent before giving up. */
  attempts = 1;
  /**
   * An attempt was sent and its answer never came whole (the connection dropped, the time ran
   * out, the body was cut): the server may have applied it.
   */
  sentNoAnswer = false;
  /** PlantClientOptions.storeArgs, carried for the caller (the client never reads them). */
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

/**
 * A request that was sent and may have been applied (no whole answer came, or the answer said
 * its outcome is unknown), which reading the plant back could not settle: the plant may or may
 * not have been added (or deleted). Exit 3, like any missing answer.
 */
export class NoAnswerError extends UnreachableError {
  /** The plant sent. */
  readonly id: bigint;
  /** The store has no GET /plants/{id}, so it could not be read back. */
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

/**
 * A 409 (or a missing answer) for an id the store holds with other data than was sent: a real
 * conflict. `rawBody` is the Error with both versions, `sent_plant` and `stored_plant`.
 */
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
