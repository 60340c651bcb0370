/**
 * Exit codes of the `plants` CLI. Every failure a user can meet maps to exactly one
 * of these, and README.md documents them (its Exit codes table); keep the two in step.
 */
export const ExitCode = {
  ok: 0,
  /** The server answered with an error (or with something that is not the declared shape). */
  serverError: 1,
  /** Bad usage or input: nothing was sent. */
  usage: 2,
  /**
   * The server could not be reached: connection, DNS, TLS, time-out; or a change was sent and
   * may or may not have been made, and reading it back could not tell.
   */
  unreachable: 3,
  /** No token for this origin, or the server refused the token (401/403). */
  auth: 4,
  /** stdout could not be written (a full disk, /dev/full): EX_IOERR of sysexits.h. */
  outputFailed: 74,
  /** Interrupted by SIGINT (128 + 2), as shells report it. */
  interrupted: 130,
  /** stdout was closed before everything was written (`| head -1`): 128 + SIGPIPE, as shells report it. */
  brokenPipe: 141,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Base of every error the CLI expects; it carries the exit code it ends the process with. */
export class PlantsError extends Error {
  readonly exitCode: ExitCode;
  /** Extra lines for a human: what to try next. Never part of `--json` output. */
  readonly hints: readonly string[];

  constructor(message: string, options: { exitCode: ExitCode; hints?: readonly string[]; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode;
    this.hints = options.hints ?? [];
  }
}

/** Input that cannot be sent: a bad flag, a bad field, an unreadable file. Exit 2. */
export class InvalidInputError extends PlantsError {
  constructor(message: string, options: { hints?: readonly string[]; cause?: unknown } = {}) {
    super(message, { ...options, exitCode: ExitCode.usage });
  }
}
