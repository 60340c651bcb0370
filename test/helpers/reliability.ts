import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { seededRandom } from '../../src/server/test-double/prng.js';
import { readStoreFile } from './store-server.js';

/**
 * Scale for the reliability suites: `npm test` runs them short (CI), `npm run test:long`
 * (PLANTS_LONG=1) runs them long enough for a release check.
 */
export const LONG = process.env.PLANTS_LONG === '1' || process.env.PLANTS_LONG === 'true';

/** `ci` in a normal run, `long` with PLANTS_LONG=1. */
export function scaled<T>(ci: T, long: T): T {
  return LONG ? long : ci;
}

/**
 * The fast-check seed: PLANTS_SEED when given (to replay a failure), else a fixed one in CI so
 * that a red run is reproducible, and a fresh one in long mode so that each long run explores
 * new inputs (it is printed with the figures, and fast-check prints it on failure).
 */
export const SEED =
  process.env.PLANTS_SEED !== undefined
    ? Number(process.env.PLANTS_SEED)
    : LONG
      ? Date.now() % 2_147_483_647
      : 20_251_122;

/** The server's seeded generator (mulberry32), so that a failing run can be replayed with PLANTS_SEED. */
export { seededRandom };

/**
 * The longest run of faulted requests among the first `draws` requests to `plants serve --fault
 * KIND=RATE --fault-seed SEED` (each plant request draws the next number; below RATE is a fault).
 * A client that sends one request at a time meets consecutive draws, so with more retries than
 * this run no request of its can fail for the faults, whatever the timing: a bound, not a chance.
 */
export function longestFaultRun(seed: number, rate: number, draws: number): number {
  const draw = seededRandom(seed);
  let longest = 0;
  let run = 0;
  for (let index = 0; index < draws; index++) {
    run = draw() < rate ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** fast-check parameters: seeded, `numRuns` runs, and failures printed in full. */
export function fcOptions(numRuns: number) {
  return { seed: SEED, numRuns, verbose: 1 as const };
}

/**
 * Prints the figures of a suite on one line, to be read from the test output (and pasted into
 * the README after a long run): `[reliability] crash loop: cycles=3 requests=… lost=0`.
 */
export function reportFigures(suite: string, figures: Record<string, number | string | bigint>): void {
  const text = Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  console.log(`[reliability] ${suite}: ${text} mode=${LONG ? 'long' : 'ci'} seed=${SEED}`);
}

/**
 * Asserts that a secret appears in none of the named texts (everything a process printed, a
 * response body, a log). Names the place it leaked to, never printing the text itself whole.
 */
export function expectNoSecret(secret: string, places: Record<string, string>): void {
  for (const [where, text] of Object.entries(places)) {
    const at = text.indexOf(secret);
    const context = at === -1 ? '' : text.slice(Math.max(0, at - 60), at + secret.length + 20);
    expect(at, `the token appears in ${where}: …${context}…`).toBe(-1);
  }
}

/** Resident set size of a process in KiB, from /proc (Linux); undefined once it has gone. */
export function rssKb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Checks the shape of `plants` error output on stderr: the first line `plants: message`, then
 * only indented hint lines, and nothing that looks like a stack trace. Returns the lines.
 */
export function expectOneLineError(stderr: string): string[] {
  expect(stderr.endsWith('\n'), `stderr ends with a newline: ${JSON.stringify(stderr.slice(-200))}`).toBe(true);
  const lines = stderr.slice(0, -1).split('\n');
  expect(lines[0], `first stderr line: ${JSON.stringify(stderr.slice(0, 300))}`).toMatch(/^plants: \S/);
  for (const line of lines.slice(1)) {
    expect(line, `stderr has a line that is not an indented hint: ${JSON.stringify(stderr.slice(0, 600))}`).toMatch(
      /^ {2}\S/,
    );
  }
  expect(stderr, 'stderr shows a stack trace').not.toMatch(/^\s+at /m);
  return lines;
}

export interface StoredBytes {
  id: bigint;
  /** The name as SQLite holds it, byte for byte (UTF-8). */
  name: Buffer;
  tag: Buffer | null;
}

/**
 * The plants table byte for byte: ids as bigint, name and tag as the raw UTF-8 bytes in the
 * file (CAST AS BLOB), read with a connection of its own, as another program would.
 */
export function readStoredBytes(dbPath: string): StoredBytes[] {
  return readStoreFile(dbPath, (db) =>
    db
      .prepare<[], StoredBytes>(
        'SELECT id, CAST(name AS BLOB) AS name, CAST(tag AS BLOB) AS tag FROM plants ORDER BY id',
      )
      .all(),
  );
}

/** `PRAGMA integrity_check` of a database file: 'ok' when sound. */
export function integrityCheck(dbPath: string): string {
  return readStoreFile(dbPath, (db) => String(db.pragma('integrity_check', { simple: true })));
}
