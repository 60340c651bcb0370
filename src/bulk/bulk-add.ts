import { type AddSettled, type ReadBackPlant, sameNewPlant } from '../client/confirming-adder.js';
import { AuthRejectedError, ConflictError, NoAnswerError, ResponseError, UnreachableError } from '../client/errors.js';
import type { AddedPlant } from '../client/plant-client.js';
import { ExitCode, type PlantsError } from '../errors.js';
import type { InputRecord } from '../records/json-records.js';
import { InvalidPlantError } from '../schema/invalid-plant-error.js';
import { type NewPlant, storedPlantOfConflict } from '../schema/plant.js';

export interface RecordPosition {
  line: number;
  /** The element's index (from 0) when the input is a JSON array, whose records may share a line. */
  index?: number | undefined;
}

export type RecordOutcome = RecordPosition &
  (
    | { kind: 'added'; id: bigint; added: AddedPlant }
    /** A 409 on a retry, or no whole answer, and the store holds the plant exactly as sent. */
    | { kind: 'confirmed'; id: bigint; readBack: ReadBackPlant }
    /** --skip-existing: a 409, and the store holds the plant exactly as sent. */
    | { kind: 'existing'; id: bigint; readBack: ReadBackPlant }
    | { kind: 'conflict'; id: bigint; error: ConflictError }
    | { kind: 'rejected'; id: bigint; error: ResponseError }
    /** Sent, and neither an answer nor reading back settled it: it may have been added. */
    | { kind: 'unknown'; id: bigint; error: NoAnswerError }
    /** Never reached the server: not added. */
    | { kind: 'unreachable'; id: bigint; error: UnreachableError }
    | { kind: 'invalid'; message: string; fields: readonly string[] }
  );

export type BulkSummary = ReturnType<typeof emptySummary> & {
  /** When a store that answered nothing stopped the run: for how long. */
  silentForMs?: number | undefined;
};

/** The input's records, in order; `takeBuffered` takes one the reader already holds, without waiting. */
export interface RecordSource extends AsyncIterable<InputRecord> {
  takeBuffered?(): InputRecord | undefined;
}

export interface BulkAddOptions {
  records: RecordSource;
  /** Throws InvalidPlantError. */
  toPlant: (value: unknown) => NewPlant;
  send: (plant: NewPlant) => Promise<AddSettled>;
  concurrency: number;
  /** Stop reading at the first record that is not added. */
  failFast: boolean;
  /** Called once per record, in input order. */
  onOutcome: (outcome: RecordOutcome) => void;
  onInputEnd?: (records: number) => void;
  /** Aborted (SIGINT): stop reading, let requests in flight finish and be reported. */
  signal?: AbortSignal;
  /** Aborted (a second SIGINT): stop waiting; those still in flight are reported unknown. */
  signalNow?: AbortSignal;
  /**
   * A record sent with no answer stops the run only when the store has answered nothing for this
   * long: one silent request among answered ones does not. Default 0: the first such record stops it.
   */
  silenceMs?: number;
  live?: { inFlight: number };
}

/**
 * Outcomes that may wait for an earlier record's, per request in flight: at 4, a stalled record held
 * a run through the README's fault mix stopped most of the time; 16 (1,024 by default, under a MB) does not.
 */
const WINDOW_PER_REQUEST = 16;

/**
 * Sends every record with at most `concurrency` in flight, each outcome reported in input order.
 * Records are read only as fast as they are sent, and a window bounds the outcomes waiting, so
 * memory stays flat however long the input.
 */
export async function bulkAdd(options: BulkAddOptions): Promise<BulkSummary> {
  const run = new BulkRun(options);
  for (;;) {
    const record = run.readyRecord() ?? (await run.nextRecord());
    if (record === undefined) break;
    run.send(record);
  }
  await run.drain();
  return run.finish();
}

function emptySummary() {
  return {
    records: 0,
    /** Answered 200 or confirmed by reading back. */
    added: 0,
    /** Of those, confirmed by reading back. */
    confirmed: 0,
    /** Already in the store exactly as sent (--skip-existing). */
    existing: 0,
    conflicting: 0,
    rejected: 0,
    /** Of the rejected, 409s whose answer carries the plant stored exactly as sent: an import run again. */
    storedAsSent: 0,
    invalid: 0,
    unreachable: 0,
    unknown: 0,
    /** `fatal`: a failure no later record can escape. */
    stopped: undefined as 'interrupted' | 'fail-fast' | 'fatal' | undefined,
    inputEnded: false,
    fatal: undefined as PlantsError | undefined,
    firstFailures: [] as RecordOutcome[],
    elapsedMs: 0,
  };
}

/** A record to send, with its input index. */
type Sendable = { index: number; record: InputRecord; plant: NewPlant };

class BulkRun {
  readonly #options: BulkAddOptions;
  readonly #started = performance.now();
  readonly #window: number;
  readonly #summary: BulkSummary = emptySummary();
  readonly #waiting = new Map<number, RecordOutcome>();
  readonly #sent = new Map<number, { record: InputRecord; id: bigint }>();
  #nextToReport = 0;
  #index = 0;
  readonly #live: { inFlight: number };
  #wake: (() => void) | undefined;
  /** When the store last answered a record (the start, until one is). */
  #lastAnswer: number;
  #anyAnswered = false;
  /** The first record sent with no answer that did not stop the run. */
  #firstSilence: PlantsError | undefined;
  readonly #iterator: AsyncIterator<InputRecord>;
  /** Ends a wait for input (a producer that stalls) on Ctrl-C: the read is then abandoned. */
  #stopReading: ((value: 'interrupted') => void) | undefined;
  #abandonedRead = false;

  constructor(options: BulkAddOptions) {
    this.#options = options;
    this.#window = options.concurrency * WINDOW_PER_REQUEST;
    this.#live = options.live ?? { inFlight: 0 };
    this.#lastAnswer = this.#started;
    this.#iterator = options.records[Symbol.asyncIterator]();
    const wakeUp = () => this.#wakeUp();
    options.signal?.addEventListener('abort', wakeUp, { once: true });
    options.signalNow?.addEventListener('abort', wakeUp, { once: true });
    // One listener for the run: a race per record against one long-lived promise would keep a reaction per record.
    options.signal?.addEventListener('abort', () => this.#stopReading?.('interrupted'), { once: true });
  }

  /**
   * The next record to send when the reader holds one and there is room, taken without an await:
   * awaits per record cost a bulk add 16% more allocation (docs/performance.md, group n).
   */
  readyRecord(): Sendable | undefined {
    while (this.#goesOn() && !this.#full()) {
      const buffered = this.#options.records.takeBuffered?.();
      if (buffered === undefined) return undefined;
      const sendable = this.#accept(buffered);
      if (sendable !== undefined) return sendable;
    }
    return undefined;
  }

  /** The next record to send, once there is room for it; records that are not NewPlants are settled on the way. */
  async nextRecord(): Promise<Sendable | undefined> {
    for (;;) {
      while (this.#goesOn() && this.#full()) await this.#woken();
      if (this.#options.signal?.aborted) this.#stop('interrupted');
      if (this.#summary.stopped !== undefined) return undefined;
      const next = await this.#read();
      if (next === 'interrupted') {
        this.#abandonedRead = true;
        this.#stop('interrupted');
        return undefined;
      }
      if (next.done === true) {
        this.#summary.inputEnded = true;
        this.#options.onInputEnd?.(this.#summary.records);
        return undefined;
      }
      const sendable = this.#accept(next.value);
      if (sendable !== undefined) return sendable;
    }
  }

  /** A record read: counted, and returned to be sent, or settled at once when it is not a NewPlant. */
  #accept(record: InputRecord): Sendable | undefined {
    const index = this.#index++;
    this.#summary.records++;
    const plant = checkRecord(record, this.#options.toPlant);
    if (!('kind' in plant)) return { index, record, plant };
    this.#settle(index, plant);
    return undefined;
  }

  send({ index, record, plant }: Sendable): void {
    this.#live.inFlight++;
    this.#sent.set(index, { record, id: plant.id });
    this.#options.send(plant).then(
      (settled) => {
        if (!this.#sent.delete(index)) return;
        this.#live.inFlight--;
        this.#settle(index, success(record, plant.id, settled));
      },
      (error: unknown) => {
        if (!this.#sent.delete(index)) return;
        this.#live.inFlight--;
        const outcome = failure(positionOf(record), plant.id, error);
        if (outcome.kind === 'rejected' && outcome.error.status === 409) {
          const stored = storedPlantOfConflict(outcome.error.rawBody);
          if (stored !== undefined && sameNewPlant(plant, stored.plant)) this.#summary.storedAsSent++;
        }
        this.#settle(index, outcome);
      },
    );
  }

  /** Waits for every request in flight to settle, until a second Ctrl-C (signalNow). */
  async drain(): Promise<void> {
    const { signalNow } = this.#options;
    // (An iterator still busy with an abandoned read would make return() wait for it.)
    if (!signalNow?.aborted && !this.#abandonedRead) await this.#iterator.return?.(undefined);
    while (this.#live.inFlight > 0 && !signalNow?.aborted) await this.#woken();
    if (!signalNow?.aborted) return;
    for (const [index, { record, id }] of [...this.#sent].sort(([a], [b]) => a - b)) {
      this.#sent.delete(index);
      const cause = new UnreachableError('interrupted before its answer arrived', { failure: { kind: 'interrupted' } });
      this.#settle(index, { kind: 'unknown', ...positionOf(record), id, error: new NoAnswerError(id, cause) });
    }
    for (const index of [...this.#waiting.keys()].sort((a, b) => a - b)) {
      this.#report(this.#waiting.get(index) as RecordOutcome);
      this.#waiting.delete(index);
    }
  }

  finish(): BulkSummary {
    const summary = this.#summary;
    // A store that never answered a record whole is what ended every one: its exit code is the run's.
    if (summary.fatal === undefined && !this.#anyAnswered) summary.fatal = this.#firstSilence;
    summary.elapsedMs = performance.now() - this.#started;
    return summary;
  }

  /** Neither stopped nor interrupted. */
  #goesOn(): boolean {
    return this.#summary.stopped === undefined && !this.#options.signal?.aborted;
  }

  /** Requests in flight, or outcomes waiting, at their most. */
  #full(): boolean {
    return this.#live.inFlight >= this.#options.concurrency || this.#index - this.#nextToReport >= this.#window;
  }

  /** Ctrl-C ends the wait. */
  async #read(): Promise<IteratorResult<InputRecord> | 'interrupted'> {
    const buffered = this.#options.records.takeBuffered?.();
    if (buffered !== undefined) return { done: false, value: buffered };
    const reading = this.#iterator.next();
    if (this.#options.signal === undefined) return reading;
    const next = await new Promise<IteratorResult<InputRecord> | 'interrupted'>((resolve, reject) => {
      this.#stopReading = resolve;
      reading.then(resolve, reject);
    });
    this.#stopReading = undefined;
    return next;
  }

  #settle(index: number, outcome: RecordOutcome): void {
    if (answered(outcome)) {
      this.#lastAnswer = performance.now();
      this.#anyAnswered = true;
    }
    this.#waiting.set(index, outcome);
    for (let ready = this.#waiting.get(this.#nextToReport); ready !== undefined; ) {
      this.#waiting.delete(this.#nextToReport);
      this.#nextToReport++;
      this.#report(ready);
      ready = this.#waiting.get(this.#nextToReport);
    }
    if (!succeeded(outcome)) this.#afterFailure(outcome);
    this.#wakeUp();
  }

  #afterFailure(outcome: RecordOutcome): void {
    if (this.#options.failFast) this.#stop('fail-fast');
    const fatal = fatalError(outcome);
    if (fatal === undefined) return;
    const silentForMs = performance.now() - this.#lastAnswer;
    if (outcome.kind !== 'unknown' || silentForMs >= (this.#options.silenceMs ?? 0)) {
      if (outcome.kind === 'unknown' && this.#summary.stopped === undefined) this.#summary.silentForMs = silentForMs;
      this.#summary.fatal ??= fatal;
      this.#stop('fatal');
    } else {
      this.#firstSilence ??= fatal;
    }
  }

  #report(outcome: RecordOutcome): void {
    count(this.#summary, outcome);
    this.#options.onOutcome(outcome);
  }

  #stop(reason: NonNullable<BulkSummary['stopped']>): void {
    this.#summary.stopped ??= reason;
  }

  #wakeUp(): void {
    this.#wake?.();
    this.#wake = undefined;
  }

  #woken(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }
}

export type InvalidRecord = Extract<RecordOutcome, { kind: 'invalid' }>;

/** A record as `add` would send it (its NewPlant, the flags applied), or why it cannot be sent. */
export function checkRecord(record: InputRecord, toPlant: (value: unknown) => NewPlant): NewPlant | InvalidRecord {
  if ('error' in record) return { kind: 'invalid', ...positionOf(record), message: record.error, fields: [] };
  try {
    return toPlant(record.value);
  } catch (error) {
    if (!(error instanceof InvalidPlantError)) throw error;
    return { kind: 'invalid', ...positionOf(record), message: error.message, fields: error.fields };
  }
}

export function positionOf(record: InputRecord): RecordPosition {
  return record.index === undefined ? { line: record.line } : { line: record.line, index: record.index };
}

function success(record: InputRecord, id: bigint, settled: AddSettled): RecordOutcome {
  if (settled.kind === 'added') {
    // Every record that goes well: built whole, with no position object between.
    const { line, index } = record;
    return index === undefined
      ? { kind: 'added', line, id, added: settled.added }
      : { kind: 'added', line, index, id, added: settled.added };
  }
  return { kind: settled.kind, ...positionOf(record), id, readBack: settled };
}

function failure(at: RecordPosition, id: bigint, error: unknown): RecordOutcome {
  if (error instanceof ConflictError) return { kind: 'conflict', ...at, id, error };
  // May have been applied, from a sender that does not read back: unknown all the same, never rejected.
  if (error instanceof ResponseError && error.mayHaveBeenApplied)
    return { kind: 'unknown', ...at, id, error: new NoAnswerError(id, error) };
  if (error instanceof ResponseError) return { kind: 'rejected', ...at, id, error };
  if (error instanceof NoAnswerError) return { kind: 'unknown', ...at, id, error };
  if (error instanceof UnreachableError) {
    if (error.sentNoAnswer) return { kind: 'unknown', ...at, id, error: new NoAnswerError(id, error) };
    return { kind: 'unreachable', ...at, id, error };
  }
  throw error;
}

/** An outcome the store answered (an answered `unknown` may have been applied, but the store is there). */
const answered = (outcome: RecordOutcome) =>
  outcome.kind === 'unknown'
    ? outcome.error.cause instanceof ResponseError
    : outcome.kind !== 'unreachable' && outcome.kind !== 'invalid';

const succeeded = (outcome: RecordOutcome) =>
  outcome.kind === 'added' || outcome.kind === 'confirmed' || outcome.kind === 'existing';

/** A failure every later record would meet too: a refused token, a server that is not there or does not answer. */
function fatalError(outcome: RecordOutcome): PlantsError | undefined {
  if (outcome.kind === 'rejected' && outcome.error instanceof AuthRejectedError) return outcome.error;
  if (outcome.kind === 'unreachable' || (outcome.kind === 'unknown' && !answered(outcome))) return outcome.error;
  return undefined;
}

/** A confirmed add is counted as added, and as confirmed too. */
const COUNTED_AS = {
  added: 'added',
  confirmed: 'added',
  existing: 'existing',
  conflict: 'conflicting',
  rejected: 'rejected',
  invalid: 'invalid',
  unknown: 'unknown',
  unreachable: 'unreachable',
} as const satisfies Record<RecordOutcome['kind'], keyof BulkSummary>;

function count(summary: BulkSummary, outcome: RecordOutcome): void {
  summary[COUNTED_AS[outcome.kind]]++;
  if (outcome.kind === 'confirmed') summary.confirmed++;
  if (!succeeded(outcome) && summary.firstFailures.length < 5) summary.firstFailures.push(outcome);
}

/**
 * 0 when every record was added or already there as sent, 130 when interrupted, the fatal failure's
 * (3, 4) when nothing was added, 3 when every record was added or is `unknown` (1 would say some
 * were not added, which no record shows), else 1.
 */
export function bulkExitCode(summary: BulkSummary): ExitCode {
  if (summary.stopped === 'interrupted') return ExitCode.interrupted;
  const done = summary.added + summary.existing;
  if (done === summary.records && summary.stopped === undefined) return ExitCode.ok;
  if (done === 0 && summary.fatal !== undefined) return summary.fatal.exitCode;
  if (done + summary.unknown === summary.records && summary.inputEnded) return ExitCode.unreachable;
  return ExitCode.serverError;
}
