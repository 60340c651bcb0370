import { ExitCode, InvalidInputError, PlantsError } from '../../errors.js';
import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { DatabaseConnectError, StoreStartError } from '../../server/stores/store-errors.js';
import { errorDocument, type Output } from './output.js';

/**
 * Every failure as a PlantsError: a plant the schema refuses is bad input (exit 2); a store that
 * cannot start is exit 2 (fix the command line or the machine), or 3 when PostgreSQL cannot be
 * reached, as the client's "unreachable"; anything else is a bug, reported in one line too (never
 * as a stack trace), with exit 1.
 */
export function asPlantsError(error: unknown): PlantsError {
  if (error instanceof PlantsError) return error;
  if (error instanceof InvalidPlantError) return new InvalidInputError(error.message, { cause: error });
  if (error instanceof StoreStartError) {
    const unreachable = error instanceof DatabaseConnectError && error.unreachable;
    return new PlantsError(error.message, {
      exitCode: unreachable ? ExitCode.unreachable : ExitCode.usage,
      hints: error.hints,
      cause: error,
    });
  }
  return new PlantsError(`unexpected error: ${error instanceof Error ? error.message : String(error)}`, {
    exitCode: ExitCode.serverError,
    cause: error,
  });
}

/**
 * Tells the user about a failure and returns its exit code: the message (and hints) on
 * stderr, and with --json also one JSON document on stdout. The one place a failure becomes
 * what the user sees and the exit code, whichever command met it.
 */
export function reportError(error: unknown, output: Output, options: { json: boolean }): ExitCode {
  const known = asPlantsError(error);
  if (options.json) output.data(errorDocument(known));
  output.error(known);
  return known.exitCode;
}
