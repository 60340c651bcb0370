// Each says what happened to the request's change; app.ts chooses the HTTP status.

/** Anything else a store throws is a bug, answered 500. */
export class StoreError extends Error {
  /** The change may or may not have been made; any other store error means the request changed nothing. */
  readonly outcomeUnknown: boolean = false;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** The request changed nothing: sending it again is safe. */
export class StoreUnavailableError extends StoreError {
  readonly retryAfterSeconds: number;
  constructor(
    message = 'the database cannot be reached just now; try again shortly',
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/** No Retry-After: a client reads it back rather than sends it blindly again (a delete would then meet a 404). */
export class OutcomeUnknownError extends StoreError {
  override readonly outcomeUnknown = true;
}

/** The operator must hear of it as well as the client: the app logs it. */
export class StorageFaultError extends StoreError {}

/** The change may be in the database now or once it is next opened (SQLite recovers a commit from its WAL). */
export class CommitInterruptedError extends StorageFaultError {
  override readonly outcomeUnknown = true;
}

export class StorageFullError extends StorageFaultError {
  constructor(options: { cause?: unknown } = {}) {
    super("the server's disk is full: nothing was stored; try again once space is freed", options);
  }
}

/** A commit would go into a file nobody will ever open again. */
export class DatabaseReplacedError extends StorageFaultError {
  constructor(database: string) {
    super(
      `the database file ${database} was deleted or replaced while the server ran: nothing is stored until plants serve is restarted`,
    );
  }
}

export class StoreClosedError extends StoreError {
  constructor() {
    super('the plant store is closed');
  }
}

/** A store that cannot start; the CLI chooses the exit code (src/cli/render/report-error.ts). */
export class StoreStartError extends Error {
  /** Never a password. */
  readonly database: string;
  readonly hints: readonly string[];

  constructor(message: string, options: { database: string; cause?: unknown; hints?: readonly string[] }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.database = options.database;
    this.hints = options.hints ?? [];
  }
}

export class DatabaseOpenError extends StoreStartError {}

export class DatabaseConnectError extends StoreStartError {
  readonly unreachable: boolean;

  constructor(
    message: string,
    options: { database: string; unreachable?: boolean; cause?: unknown; hints?: readonly string[] },
  ) {
    super(message, options);
    this.unreachable = options.unreachable === true;
  }
}
