/** Exit codes of the `plants` CLI; keep README.md's Exit codes table in step. */
export const ExitCode = {
  ok: 0,
  /** The server answered with an error (or with something that is not the declared shape). */
  serverError: 1,
  /** Bad usage or input: nothing was sent. */
  usage: 2,
  /** The server could not be reached, or a change may or may not have been made and reading it back could not tell. */
  unreachable: 3,
  /** No token for this origin, or the server refused the token (401/403). */
  auth: 4,
  /** stdout could not be written: EX_IOERR of sysexits.h. */
  outputFailed: 74,
  interrupted: 130,
  /** stdout was closed early (`| head -1`): 128 + SIGPIPE, as shells report it. */
  brokenPipe: 141,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Base of every error the CLI expects, with its exit code. */
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

/** Input that cannot be sent: a bad flag, a bad field, an unreadable file. */
export class InvalidInputError extends PlantsError {
  constructor(message: string, options: { hints?: readonly string[]; cause?: unknown } = {}) {
    super(message, { ...options, exitCode: ExitCode.usage });
  }
}
