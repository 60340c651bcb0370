import { ExitCode, InvalidInputError, PlantsError } from '../../errors.js';
import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { DatabaseConnectError, StoreStartError } from '../../server/stores/store-errors.js';
import { errorDocument, type Output } from './output.js';

/**
 * Every failure as a PlantsError: a store that cannot start is exit 2 (fix the command line or the
 * machine), or 3 when PostgreSQL cannot be reached; anything else is a bug, in one line, exit 1.
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

/** The one place a failure becomes what the user sees (with --json, a document on stdout too) and an exit code. */
export function reportError(error: unknown, output: Output, options: { json: boolean }): ExitCode {
  const known = asPlantsError(error);
  if (options.json) output.data(errorDocument(known));
  output.error(known);
  return known.exitCode;
}
