import { ExitCode, PlantsError } from '../../errors.js';
import { errorDocument, type Output } from './output.js';

/**
 * Tells the user about a failure and returns its exit code: the message (and hints) on
 * stderr, and with --json also one JSON document on stdout. Anything that is not a
 * PlantsError is a bug: it is reported in one line too, never as a stack trace, with exit 1.
 */
export function reportError(error: unknown, output: Output, options: { json: boolean }): ExitCode {
  const known =
    error instanceof PlantsError
      ? error
      : new PlantsError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, {
          exitCode: ExitCode.serverError,
        });
  if (options.json) output.data(errorDocument(error instanceof PlantsError ? error : known));
  output.error(known);
  return known.exitCode;
}
