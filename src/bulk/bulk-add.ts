import { AuthRejectedError, ResponseError, UnreachableError } from '../client/errors.js';
import type { AddedPlant } from '../client/plant-client.js';
import { ExitCode, type PlantsError } from '../errors.js';
import { InvalidPlantError, type NewPlant } from '../schema/plant.js';
import type { InputRecord } from './json-records.js';

/** What became of one input record. */
export type RecordOutcome =
  | { kind: 'added'; line: number; id: bigint; added: AddedPlant }
  /** The server answered with an error (4xx/5xx, or not a Plant). */
  | { kind: 'rejected'; line: number; id: bigint; error: ResponseError }
  /** No answer from the server (refused, reset, time-out): it may or may not have been applied. */
  | { kind: 'unreachable'; line: number; id: bigint; error: UnreachableError }
  /** Not JSON, or not a NewPlant: never sent. */
  | { kind: 'invalid'; line: number; message: string; fields: readonly string[] };

export interface BulkSummary {
  /** Records read from the input. */
  records: number;
  added: number;
  rejected: number;
  invalid: number;
  unreachable: number;
  /** Stopped before the end of the input: SIGINT, --fail-fast, or a failure no later record can escape. */
  stopped: 'interrupted' | 'fail-fast' | 'fatal' | undefined;
  /** The failure that stopped a run (a refused token, a server that cannot be reached). */
  fatal: PlantsError | undefined;
  /** The first few failures, for a person to read. */
  firstFailures: RecordOutcome[];
  elapsedMs: number;
}

export interface BulkAddOptions {
  records: AsyncIterable<InputRecord>;
  /** Builds the NewPlant of a record (flags applied); throws InvalidPlantError. */
  toPlant: (value: unknown) => NewPlant;
  /** Sends one plant (the client, with its retry policy). */
  send: (plant: NewPlant) => Promise<AddedPlant>;
  /** Most requests in flight at once. */
  concurrency: number;
  /** Stop reading at the first record that is not added. */
  failFast: boolean;
  /** Called once per record, in input order. */
  onOutcome: (outcome: RecordOutcome) => void;
  /** Called once the whole input has been read, with the number of records: the total is known. */
  onInputEnd?: (records: number) => void;
  /** Aborted (SIGINT): stop reading, let requests in flight finish and be reported. */
  signal?: AbortSignal;
  /** How many first failures the summary keeps. Default 5. */
  keepFailures?: number;
}

/**
 * Sends every record with at most `concurrency` requests in flight, reporting each outcome in
 * input order. Records are read only as fast as they are sent, and at most a window of
 * 4 × concurrency outcomes wait for an earlier one, so memory stays flat however long the input.
 */
export async function runBulkAdd(options: BulkAddOptions): Promise<BulkSummary> {
  const started = performance.now();
  const window = options.concurrency * 4;
  const keep = options.keepFailures ?? 5;
  const summary: BulkSummary = {
    records: 0,
    added: 0,
    rejected: 0,
    invalid: 0,
    unreachable: 0,
    stopped: undefined,
    fatal: undefined,
    firstFailures: [],
    elapsedMs: 0,
  };
  const waiting = new Map<number, RecordOutcome>();
  let nextToReport = 0;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  options.signal?.addEventListener('abort', wakeUp, { once: true });

  const stop = (reason: NonNullable<BulkSummary['stopped']>) => {
    summary.stopped ??= reason;
  };
  const settle = (index: number, outcome: RecordOutcome) => {
    waiting.set(index, outcome);
    for (let ready = waiting.get(nextToReport); ready !== undefined; ready = waiting.get(nextToReport)) {
      waiting.delete(nextToReport);
      nextToReport++;
      count(summary, ready, keep);
      options.onOutcome(ready);
    }
    if (outcome.kind !== 'added') {
      if (options.failFast) stop('fail-fast');
      const fatal = fatalError(outcome);
      if (fatal !== undefined) {
        summary.fatal ??= fatal;
        stop('fatal');
      }
    }
    wakeUp();
  };

  const iterator = options.records[Symbol.asyncIterator]();
  let index = 0;
  for (;;) {
    while (
      summary.stopped === undefined &&
      !options.signal?.aborted &&
      (inFlight >= options.concurrency || index - nextToReport >= window)
    ) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    if (options.signal?.aborted) stop('interrupted');
    if (summary.stopped !== undefined) break;
    const next = await iterator.next();
    if (next.done === true) {
      options.onInputEnd?.(summary.records);
      break;
    }
    const record = next.value;
    const current = index++;
    summary.records++;
    if ('error' in record) {
      settle(current, { kind: 'invalid', line: record.line, message: record.error, fields: [] });
      continue;
    }
    let plant: NewPlant;
    try {
      plant = options.toPlant(record.value);
    } catch (error) {
      if (!(error instanceof InvalidPlantError)) throw error;
      settle(current, { kind: 'invalid', line: record.line, message: error.message, fields: error.fields });
      continue;
    }
    inFlight++;
    options.send(plant).then(
      (added) => {
        inFlight--;
        settle(current, { kind: 'added', line: record.line, id: plant.id, added });
      },
      (error: unknown) => {
        inFlight--;
        settle(current, failure(record.line, plant.id, error));
      },
    );
  }
  await iterator.return?.(undefined);
  while (inFlight > 0) {
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
  summary.elapsedMs = performance.now() - started;
  return summary;
}

function failure(line: number, id: bigint, error: unknown): RecordOutcome {
  if (error instanceof ResponseError) return { kind: 'rejected', line, id, error };
  if (error instanceof UnreachableError) return { kind: 'unreachable', line, id, error };
  throw error;
}

/** A failure every later record would meet too: a refused token, a server that is not there. */
function fatalError(outcome: RecordOutcome): PlantsError | undefined {
  if (outcome.kind === 'rejected' && outcome.error instanceof AuthRejectedError) return outcome.error;
  if (outcome.kind === 'unreachable') return outcome.error;
  return undefined;
}

function count(summary: BulkSummary, outcome: RecordOutcome, keep: number): void {
  if (outcome.kind === 'added') summary.added++;
  else if (outcome.kind === 'rejected') summary.rejected++;
  else if (outcome.kind === 'invalid') summary.invalid++;
  else summary.unreachable++;
  if (outcome.kind !== 'added' && summary.firstFailures.length < keep) summary.firstFailures.push(outcome);
}

/**
 * The exit code of a bulk run: 0 when every record was added, 130 when interrupted, 3 or 4 when
 * nothing was added because the server could not be reached or refused the token, else 1.
 */
export function bulkExitCode(summary: BulkSummary): ExitCode {
  if (summary.stopped === 'interrupted') return ExitCode.interrupted;
  if (summary.added === summary.records && summary.stopped === undefined) return ExitCode.ok;
  if (summary.added === 0 && summary.fatal !== undefined) return summary.fatal.exitCode;
  return ExitCode.serverError;
}
