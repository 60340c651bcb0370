import { bulkAdd, bulkExitCode, type RecordOutcome, type RecordSource } from '../../bulk/bulk-add.js';
import { ConfirmingAdder } from '../../client/confirming-adder.js';
import { ExitCode } from '../../errors.js';
import type { NewPlant } from '../../schema/plant.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import { type CarryOn, carryOnLine, outcomeLine, progressText, renderBulkSummary } from '../render/render-bulk.js';
import type { ActionContext } from '../runner.js';

export interface BulkFlags extends RequestOptions, JsonOptions {
  concurrency: number;
  retries: number;
  'fail-fast': boolean;
  'skip-existing': boolean;
  /** `-` or none: stdin. */
  file?: string | undefined;
}

/**
 * A bulk add as the user sees it: NDJSON results on stdout, progress and a summary on stderr.
 * Ctrl-C stops reading and waits for the requests in flight; a second one stops waiting (exit 130).
 */
export async function addPlantsInBulk(
  { records, toPlant }: { records: RecordSource; toPlant: (value: unknown) => NewPlant },
  flags: BulkFlags,
  { factory, output }: ActionContext,
): Promise<ExitCode> {
  const client = await factory.plantClient(flags, { connections: flags.concurrency });
  const carryOn: CarryOn = { file: flags.file ?? '-', storeArgs: client.storeArgs };
  const interrupt = new AbortController();
  const interruptNow = new AbortController();
  const live = { inFlight: 0 };
  const notices: string[] = [];
  const progress = output.progress(progressText(0, 0));
  const say = (line: string) => {
    // On a terminal the spinner owns the last line: the words wait for the summary.
    if (output.canAnimate) notices.push(line);
    else output.info(line);
  };
  const onSigint = () => {
    if (interrupt.signal.aborted) {
      interruptNow.abort();
      return;
    }
    interrupt.abort();
    const { inFlight } = live;
    const waiting =
      inFlight === 0
        ? 'Interrupted: reading no more records.'
        : `Interrupted: reading no more records; waiting for the answers to ${inFlight} request${inFlight === 1 ? '' : 's'} in flight (Ctrl-C again to stop waiting and print what is known).`;
    if (output.canAnimate) progress.update(waiting);
    else output.info(waiting);
  };
  process.on('SIGINT', onSigint);
  // Put before stdout-errors.ts's exit 141: what was done is said on stderr first.
  let added = 0;
  let closed = false;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' || closed) return;
    closed = true;
    interrupt.abort();
    interruptNow.abort();
    const { inFlight } = live;
    const rest =
      total === undefined
        ? `${inFlight === 0 ? '' : `${inFlight} in flight (may have been added), `}the rest of the input not sent`
        : `${total - done - inFlight} not sent${inFlight === 0 ? '' : `, ${inFlight} in flight (may have been added)`}`;
    output.info(`plants: stopped: stdout was closed after ${added} added; ${rest}`);
    output.info(`  ${carryOnLine(carryOn)}`);
  };
  output.stdout.prependListener('error', onStdoutError);
  const adder = new ConfirmingAdder({
    client,
    retry: { attempts: flags.retries + 1 },
    skipExisting: flags['skip-existing'],
    onNoReadBack: (message) => say(`plants: ${message}`),
  });
  const started = performance.now();
  let done = 0;
  let total: number | undefined;
  let lastUpdate = 0;
  try {
    const summary = await bulkAdd({
      records,
      toPlant,
      send: (plant) => adder.add(plant),
      live,
      concurrency: flags.concurrency,
      failFast: flags['fail-fast'],
      // A store silent as long as one request may wait is not there.
      silenceMs: flags.timeout * 1000,
      signal: interrupt.signal,
      signalNow: interruptNow.signal,
      onInputEnd: (records) => {
        total = records;
      },
      onOutcome: (outcome: RecordOutcome) => {
        if (closed) return;
        progress.data(outcomeLine(outcome));
        done++;
        if (outcome.kind === 'added' || outcome.kind === 'confirmed') added++;
        const now = performance.now();
        if (now - lastUpdate > 100 && !interrupt.signal.aborted) {
          lastUpdate = now;
          progress.update(progressText(done, now - started, total));
        }
      },
    });
    progress.stop();
    for (const notice of notices) output.info(notice);
    if (closed) return ExitCode.brokenPipe;
    const exitCode = bulkExitCode(summary);
    output.info(renderBulkSummary(summary, output.errorColor, carryOn));
    // Requests still in flight would hold the process (and closing the agent waits for them).
    if (interruptNow.signal.aborted) process.exit(exitCode);
    return exitCode;
  } finally {
    progress.stop();
    process.removeListener('SIGINT', onSigint);
    output.stdout.removeListener('error', onStdoutError);
  }
}
