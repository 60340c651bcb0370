/**
 * The Error's `outcome` when the request may have been applied (the database went away mid-commit),
 * for a client to read back; absent, it changed nothing. Without zod: the CLI's output names it too.
 */
export const OUTCOME_UNKNOWN = 'unknown';
