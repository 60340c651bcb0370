/**
 * The Error's `outcome` when the request may or may not have been applied: the server sent the
 * change to its database and lost it before the answer (PostgreSQL went away, the disk failed
 * mid-commit). Absent from every other Error: that request changed nothing. A client settles it
 * by reading back (GET /plants/{id}), rather than reporting it as not done, or sending a delete
 * again. A module of its own, without zod: the CLI's output names it too (`--json`).
 */
export const OUTCOME_UNKNOWN = 'unknown';
