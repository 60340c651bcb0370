import type { BulkSummary, RecordOutcome, RecordPosition } from '../../bulk/bulk-add.js';
import { ConflictError, NoAnswerError, ResponseError } from '../../client/errors.js';
import { parseJsonExact, stringifyJsonExact } from '../../schema/exact-json.js';
import type { NewPlant } from '../../schema/plant.js';
import type { Colors } from './colors.js';
import { failureHints, lookUpHints, shellWord } from './failure-hints.js';
import { sanitizeForTerminal } from './output.js';
import { plantJsonLine } from './render-plant.js';

/** A JSON text on one line: the server's body as it came when it already is. */
function oneLine(json: string): string {
  const trimmed = json.trim();
  return trimmed.includes('\n') ? stringifyJsonExact(parseJsonExact(trimmed)) : trimmed;
}

/** The NDJSON result line of one record. Ids keep every digit: the server's text is passed through, not re-read. */
export function outcomeLine(outcome: RecordOutcome): string {
  const head = lineHead(outcome);
  const tail = `,"outcome":"${outcomeName(outcome)}"`;
  switch (outcome.kind) {
    case 'added':
      return `${head},"sent":true,"status":${outcome.added.status},"plant":${oneLine(outcome.added.rawBody)}${attempts(outcome.added.attempts)}${tail}}`;
    case 'confirmed':
      return `${head},"sent":true,"plant":${oneLine(outcome.readBack.rawBody)},"confirmed":"by reading back"${attempts(outcome.readBack.attempts)}${tail}}`;
    case 'existing':
      return `${head},"sent":true,"status":409,"plant":${oneLine(outcome.readBack.rawBody)}${attempts(outcome.readBack.attempts)}${tail}}`;
    case 'conflict':
      return `${head},"sent":true,"status":409,"error":${errorBody(outcome.error)},"sent_plant":${outcome.error.sentPlant},"stored_plant":${outcome.error.storedPlant}${attempts(outcome.error.attempts)}${tail}}`;
    case 'rejected': {
      const message = outcome.error.attempts > 1 ? `,"message":${JSON.stringify(outcome.error.message)}` : '';
      return `${head},"sent":true,"status":${outcome.error.status},"error":${errorBody(outcome.error)}${message}${attempts(outcome.error.attempts)}${tail}}`;
    }
    case 'unknown': {
      const { cause, message } = outcome.error;
      if (cause instanceof ResponseError) {
        return `${head},"sent":true,"status":${cause.status},"error":${errorBody(cause)},"message":${JSON.stringify(message)}${attempts(outcome.error.attempts)}${tail}}`;
      }
      return `${head},"sent":true,"error":${JSON.stringify({ error: 0, message })}${attempts(outcome.error.attempts)}${tail}}`;
    }
    case 'unreachable':
      return `${head},"sent":false,"error":${JSON.stringify({ error: 0, message: outcome.error.message })}${attempts(outcome.error.attempts)}${tail}}`;
    case 'invalid':
      // Never sent, so no status: an Error of status 0 would pretend an answer.
      return `${head},"sent":false,"error":${JSON.stringify({ message: outcome.message })},"fields":${JSON.stringify(outcome.fields)}${tail}}`;
  }
}

function lineHead(at: RecordPosition): string {
  return `{"line":${at.line}${at.index === undefined ? '' : `,"index":${at.index}`}`;
}

/** `add --dry-run`'s result line of a record that would be sent. */
export function validLine(at: RecordPosition, plant: NewPlant): string {
  return `${lineHead(at)},"sent":false,"plant":${plantJsonLine(plant)},"outcome":"valid"}`;
}

/** `add --dry-run`'s count on stderr: `3 records: 2 valid, 1 invalid (line 2)`. */
export function renderDryRunCount(records: number, invalid: number, firstInvalid: readonly RecordPosition[]): string {
  const more = invalid > firstInvalid.length ? '; …' : '';
  const lines = invalid === 0 ? '' : ` (${firstInvalid.map(where).join('; ')}${more})`;
  return `${records} record${records === 1 ? '' : 's'}: ${records - invalid} valid, ${invalid} invalid${lines}`;
}

function outcomeName(outcome: RecordOutcome): string {
  if (outcome.kind === 'confirmed') return 'added';
  if (outcome.kind === 'unreachable') return 'not-sent';
  return outcome.kind;
}

function errorBody(error: ResponseError): string {
  if (error instanceof ConflictError) return JSON.stringify(error.body);
  return error.rawBody === undefined ? JSON.stringify(error.body) : oneLine(error.rawBody);
}

const attempts = (count: number) => (count > 1 ? `,"attempts":${count}` : '');

function describeFailure(outcome: RecordOutcome): string {
  switch (outcome.kind) {
    case 'added':
    case 'confirmed':
      return 'added';
    case 'existing':
      return 'already there';
    case 'conflict':
      return `${outcome.error.message} (stored ${outcome.error.storedPlant}; sent ${outcome.error.sentPlant})`;
    case 'rejected':
    case 'unknown':
    case 'unreachable':
      return outcome.error.message;
    case 'invalid':
      return outcome.message;
  }
}

function where(outcome: RecordPosition): string {
  return outcome.index === undefined ? `line ${outcome.line}` : `line ${outcome.line}, index ${outcome.index}`;
}

/** What a bulk add was given, to say how to carry on from where it ended. */
export interface CarryOn {
  /** `--file`'s value: a path, or `-` for stdin. */
  file: string;
  storeArgs: readonly string[];
}

/** The line that carries on after an import that ended early, or left records a run again could add. */
export function carryOnLine({ file, storeArgs }: CarryOn): string {
  const command = ['plants', 'add', '--file', file, '--skip-existing', ...storeArgs].map(shellWord).join(' ');
  const input = file === '-' ? 'the same input on stdin' : 'the same file';
  return `To carry on, send ${input} again: \`${command}\` adds the rest and reports what is stored already as already there.`;
}

/** Whether running the import again could add what this one did not. */
function mayCarryOn(summary: BulkSummary): boolean {
  if (summary.stopped !== undefined && !summary.inputEnded) return true;
  if (summary.unreachable > 0 || summary.unknown > 0) return true;
  return summary.firstFailures.some(
    (failure) => failure.kind === 'rejected' && (failure.error.status === 429 || failure.error.status >= 500),
  );
}

export function progressText(done: number, elapsedMs: number, total?: number): string {
  const rate = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
  return `Adding plants: ${done}${total === undefined ? '' : `/${total}`} (${rate}/s)`;
}

export function renderBulkSummary(summary: BulkSummary, c: Colors, carryOn?: CarryOn): string {
  // Said even in a pipe: an empty input is most often a producer that failed (a list of an empty store).
  if (summary.records === 0 && summary.stopped === undefined)
    return '0 records read: the input held no plants, so nothing was sent.';
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(summary.records / seconds) : summary.records;
  const done = summary.added + summary.existing;
  const mark = done === summary.records && summary.stopped === undefined ? c.green('✓') : c.red('✗');
  const total = summary.inputEnded ? `${summary.records} plants` : `${summary.records} read`;
  const confirmed = summary.confirmed > 0 ? ` (${summary.confirmed} confirmed by reading back)` : '';
  const lines = [
    `${mark} Added ${summary.added} of ${total} in ${seconds.toFixed(1)} s (${rate}/s)${confirmed}: ` +
      `${summary.existing} already there, ${summary.conflicting} conflicting, ` +
      `${summary.rejected} rejected by the server, ${summary.invalid} invalid, ` +
      `${summary.unreachable} not sent (no answer), ${summary.unknown} unknown (sent, may have been added)`,
  ];
  if (summary.stopped === 'interrupted')
    lines.push(c.yellow('Interrupted: the rest of the input was not read or sent.'));
  // A stop once the whole input was read left nothing unsent.
  if (summary.stopped === 'fail-fast' && !summary.inputEnded)
    lines.push(c.yellow('Stopped at the first failure (--fail-fast): the rest was not sent.'));
  if (summary.stopped === 'fatal' && !summary.inputEnded) {
    const silent =
      summary.silentForMs === undefined
        ? ''
        : ` the store answered nothing for ${Math.round(summary.silentForMs / 1000)} s;`;
    lines.push(c.yellow(`Stopped:${silent} the rest was not sent.`));
  }
  // Why no answer came is the same for each: said once, after the stop it explains.
  const causeHints = new Set<string>();
  if (summary.firstFailures.length > 0) {
    lines.push('First failures:');
    const hints = new Set<string>();
    const statuses = new Set<number>();
    for (const failure of summary.firstFailures) {
      lines.push(`  ${where(failure)}: ${sanitizeForTerminal(describeFailure(failure))}`);
      // One status's hints once: its tries' timings differ from record to record.
      if (failure.kind === 'rejected' && summary.fatal === undefined && !statuses.has(failure.error.status)) {
        statuses.add(failure.error.status);
        for (const hint of failureHints(failure.error)) hints.add(hint);
      }
      // Unless the stop below says it already.
      if (failure.kind === 'unknown' && !(summary.fatal instanceof NoAnswerError)) {
        for (const hint of lookUpHints(failure.error)) hints.add(hint);
        for (const hint of failureHints(failure.error.cause)) causeHints.add(hint);
      }
    }
    if (summary.storedAsSent > 0) {
      const n = summary.storedAsSent;
      hints.add(
        `${n === 1 ? '1 of the 409s is a plant' : `${n} of the 409s are plants`} stored exactly as sent, as when an import runs again: --skip-existing reports those as already there (exit 0).`,
      );
    }
    for (const hint of hints) lines.push(c.dim(`  ${hint}`));
  }
  // (A run not stopped has a fatal failure only when the store answered no record at all.)
  if (summary.fatal !== undefined && (summary.stopped === 'fatal' || summary.stopped === undefined)) {
    lines.push(`${c.red('plants:')} ${sanitizeForTerminal(summary.fatal.message)}`);
    for (const hint of failureHints(summary.fatal)) causeHints.add(hint);
  }
  for (const hint of causeHints) lines.push(c.dim(`  ${hint}`));
  if (carryOn !== undefined && mayCarryOn(summary)) lines.push(carryOnLine(carryOn));
  return lines.join('\n');
}
