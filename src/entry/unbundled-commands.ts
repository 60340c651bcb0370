/**
 * Commands whose action runs from dist/ as tsc wrote it, not from the fast route's bundle:
 * `serve` is the server (SQLite, PostgreSQL, pino, prom-client), which no short command should
 * carry. scripts/bundle.mjs leaves their actions out of the bundle; the entry imports them from
 * dist/ together with the runner, so that both share one copy of every module (an error's
 * class included).
 */
export const unbundledCommands: readonly string[] = ['serve'];
