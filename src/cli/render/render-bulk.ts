import type { BulkSummary, RecordOutcome } from '../../bulk/bulk-add.js';
import { parseJsonExact, stringifyJsonExact } from '../../schema/exact-json.js';
import type { Colors } from './colors.js';
import { sanitizeForTerminal } from './output.js';

/** A JSON text on one line: the server's body as it came when it is already one line. */
function oneLine(json: string): string {
  const trimmed = json.trim();
  return trimmed.includes('\n') ? stringifyJsonExact(parseJsonExact(trimmed)) : trimmed;
}

/**
 * The NDJSON result line of one record: its input line, whether it reached the server, the
 * HTTP status, and the Plant or the Error (with the fields at fault for a record never sent).
 * Ids keep every digit: the server's text is passed through, not re-read as numbers.
 */
export function outcomeLine(outcome: RecordOutcome): string {
  const head = `{"line":${outcome.line}`;
  switch (outcome.kind) {
    case 'added':
      return `${head},"sent":true,"status":${outcome.added.status},"plant":${oneLine(outcome.added.rawBody)}${attempts(outcome.added.attempts)}}`;
    case 'rejected': {
      const error =
        outcome.error.rawBody === undefined ? JSON.stringify(outcome.error.body) : oneLine(outcome.error.rawBody);
      const message = outcome.error.attempts > 1 ? `,"message":${JSON.stringify(outcome.error.message)}` : '';
      return `${head},"sent":true,"status":${outcome.error.status},"error":${error}${message}${attempts(outcome.error.attempts)}}`;
    }
    case 'unreachable':
      return `${head},"sent":false,"error":${JSON.stringify({ error: 0, message: outcome.error.message })}${attempts(outcome.error.attempts)}}`;
    case 'invalid':
      return `${head},"sent":false,"error":${JSON.stringify({ error: 0, message: outcome.message })},"fields":${JSON.stringify(outcome.fields)}}`;
  }
}

const attempts = (count: number) => (count > 1 ? `,"attempts":${count}` : '');

function describeFailure(outcome: RecordOutcome): string {
  switch (outcome.kind) {
    case 'added':
      return 'added';
    case 'rejected':
    case 'unreachable':
      // The same words a one-record add uses for the same failure.
      return outcome.error.message;
    case 'invalid':
      return outcome.message;
  }
}

/** The progress line of a bulk add: done (of total when known) and the rate. */
export function progressText(done: number, elapsedMs: number, total?: number): string {
  const rate = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
  return `Adding plants: ${done}${total === undefined ? '' : `/${total}`} (${rate}/s)`;
}

/** The summary for a person, on stderr: counts, how it ended, and the first failures by line. */
export function renderBulkSummary(summary: BulkSummary, c: Colors): string {
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(summary.records / seconds) : summary.records;
  const mark = summary.added === summary.records && summary.stopped === undefined ? c.green('✓') : c.red('✗');
  const lines = [
    `${mark} Added ${summary.added} of ${summary.records} plants in ${seconds.toFixed(1)} s (${rate}/s): ` +
      `${summary.rejected} rejected by the server, ${summary.invalid} invalid, ${summary.unreachable} not sent (no answer)`,
  ];
  if (summary.stopped === 'interrupted')
    lines.push(c.yellow('Interrupted: the rest of the input was not read or sent.'));
  if (summary.stopped === 'fail-fast')
    lines.push(c.yellow('Stopped at the first failure (--fail-fast): the rest was not sent.'));
  if (summary.stopped === 'fatal') lines.push(c.yellow('Stopped: the rest was not sent.'));
  if (summary.firstFailures.length > 0) {
    lines.push('First failures:');
    const hints = new Set<string>();
    for (const failure of summary.firstFailures) {
      lines.push(`  line ${failure.line}: ${sanitizeForTerminal(describeFailure(failure))}`);
      if (failure.kind === 'rejected' && summary.fatal === undefined)
        for (const hint of failure.error.hints) hints.add(hint);
    }
    for (const hint of hints) lines.push(c.dim(`  ${hint}`));
  }
  if (summary.stopped === 'fatal' && summary.fatal !== undefined) {
    // What stopped the run, in the words (and with the hints) any other command uses for it.
    lines.push(`${c.red('plants:')} ${sanitizeForTerminal(summary.fatal.message)}`);
    for (const hint of summary.fatal.hints) lines.push(c.dim(`  ${hint}`));
  }
  return lines.join('\n');
}
