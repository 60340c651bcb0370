// What a store rejects with when it cannot do what was asked. Each says what happened to the
// request's change, in the store's terms; the app's one error mapper (app.ts) chooses the HTTP
// status and headers each is answered with.

/** A store failure. Anything else a store throws is a bug, answered 500. */
export class StoreError extends Error {
  /**
   * The change was sent to the database and then cut off before its answer: it may or may not
   * have been made. The answer says so in a way a program reads (the Error's `outcome: "unknown"`),
   * whatever its status; any other store error means the request changed nothing.
   */
  readonly outcomeUnknown: boolean = false;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/**
 * The database cannot be reached just now (restarting, network cut, failover), and the request
 * changed nothing: sending it again is safe. Answered 503 with Retry-After.
 */
export class StoreUnavailableError extends StoreError {
  readonly retryAfterSeconds: number;
  constructor(
    message = 'the database cannot be reached just now; try again shortly',
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options);
    // Seconds a client is asked to wait (Retry-After): 1 unless the store knows better.
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/**
 * The database went away after the change was sent to it, and did not come back in time to say
 * whether it was made: it may or may not be. 503 with `outcome: "unknown"` and no Retry-After:
 * a client finds out (reads it back) rather than sends it blindly again (a delete sent again
 * answers 404 for a plant it removed itself).
 */
export class OutcomeUnknownError extends StoreError {
  override readonly outcomeUnknown = true;
}

/**
 * A fault of the storage under the store, which the operator must hear of as well as the
 * client: the app logs it, where other store errors are the client's business only.
 */
export class StorageFaultError extends StoreError {}

/**
 * The storage failed under a commit (an I/O error, the thread committing it lost): its change
 * may or may not be in the database, now or once it is next opened (SQLite recovers a commit
 * whose every page reached the write-ahead log). 500 with `outcome: "unknown"`, logged.
 */
export class CommitInterruptedError extends StorageFaultError {
  override readonly outcomeUnknown = true;
}

/** The disk under the database is full. The transaction rolled back: nothing was stored. 507. */
export class StorageFullError extends StorageFaultError {
  constructor(options: { cause?: unknown } = {}) {
    super("the server's disk is full: nothing was stored; try again once space is freed", options);
  }
}

/**
 * The database file was deleted or replaced while the server ran. A commit would go into a file
 * nobody will ever open again, so none is made until the server restarts. 500 that says what.
 */
export class DatabaseReplacedError extends StorageFaultError {
  constructor(database: string) {
    super(
      `the database file ${database} was deleted or replaced while the server ran: nothing is stored until plants serve is restarted`,
    );
  }
}

/** The store is closed: the server is shutting down. 503. */
export class StoreClosedError extends StoreError {
  constructor() {
    super('the plant store is closed');
  }
}

// What a store rejects with when it cannot start. These are facts about the database, not
// answers to a request; the CLI chooses the exit code each ends `plants serve` with
// (src/cli/render/report-error.ts).

/** A store that cannot start, with what the user may try next. */
export class StoreStartError extends Error {
  /** The database as it may be shown: a file, or PostgreSQL's host, port and name (never a password). */
  readonly database: string;
  /** Extra lines for a human: what to try next. */
  readonly hints: readonly string[];

  constructor(message: string, options: { database: string; cause?: unknown; hints?: readonly string[] }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.database = options.database;
    this.hints = options.hints ?? [];
  }
}

/** The database cannot be used: missing folder, not writable, locked, not SQLite, a schema too new. */
export class DatabaseOpenError extends StoreStartError {}

/**
 * The PostgreSQL database cannot be used: a malformed URL, a bad password, a missing database,
 * or (`unreachable`) a server that cannot be reached. The message names host, port and
 * database, never the password.
 */
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
