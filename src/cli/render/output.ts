import { NoAnswerError, ResponseError } from '../../client/errors.js';
import { PlantsError } from '../../errors.js';
import { OUTCOME_UNKNOWN } from '../../schema/outcome.js';
import type { ColorMode } from '../env.js';
import type { IOStreams } from '../io-streams.js';
import { type Colors, chalkColors, plain } from './colors.js';
import { failureHints } from './failure-hints.js';
import { importOra } from './import-ora.js';
import type { JqFilter } from './jq-filter.js';

function colored(io: IOStreams, which: 'stdout' | 'stderr', mode: ColorMode): boolean {
  return mode === 'always' || (mode === 'auto' && io[`${which}IsTerminal`]);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const controlCharacters = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Text from a server or a file, made safe to print: control characters could rewrite the screen or fake lines. */
export function sanitizeForTerminal(text: string): string {
  return text.replace(controlCharacters, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Where everything a command prints goes: data on stdout, messages on stderr, colour only on terminals. */
export class Output {
  readonly #streams: IOStreams;
  readonly color: Colors;
  readonly errorColor: Colors;
  /** Set by the runner before the action runs. */
  jq: JqFilter | undefined;
  /** The --jq error that stopped the output. */
  jqFailure: PlantsError | undefined;

  private constructor(streams: IOStreams, color: ColorMode, palette: Colors = plain) {
    this.#streams = streams;
    this.color = colored(streams, 'stdout', color) ? palette : plain;
    this.errorColor = colored(streams, 'stderr', color) ? palette : plain;
  }

  get stdout(): NodeJS.WriteStream {
    return this.#streams.stdout;
  }

  get stderr(): NodeJS.WriteStream {
    return this.#streams.stderr;
  }

  /** chalk is loaded only when a stream is coloured. */
  static async open(
    streams: IOStreams,
    options: { color: ColorMode; loadPalette?: () => Promise<Colors> },
  ): Promise<Output> {
    const wanted = colored(streams, 'stdout', options.color) || colored(streams, 'stderr', options.color);
    const palette = wanted ? await (options.loadPalette ?? chalkColors)() : undefined;
    return new Output(streams, options.color, palette);
  }

  data(line: string): void {
    this.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
  }

  /** JSON values on stdout, or what --jq makes of them; jq's first error is thrown and kept: nothing prints after it. */
  json(texts: readonly string[]): void {
    if (this.jq === undefined) {
      if (texts.length > 0) this.stdout.write(`${texts.join('\n')}\n`);
      return;
    }
    if (this.jqFailure !== undefined) return;
    const { lines, stderr, error } = this.jq.run(texts);
    if (lines.length > 0) this.stdout.write(`${lines.join('\n')}\n`);
    if (stderr !== '') this.info(stderr);
    if (error !== undefined) {
      this.jqFailure = error;
      throw error;
    }
  }

  info(line: string): void {
    this.stderr.write(`${line}\n`);
  }

  error(error: unknown): void {
    const c = this.errorColor;
    const message = error instanceof Error ? error.message : String(error);
    this.info(`${c.red('plants:')} ${sanitizeForTerminal(message)}`);
    if (error instanceof PlantsError) for (const hint of failureHints(error)) this.info(c.dim(`  ${hint}`));
  }

  get canAnimate(): boolean {
    // A terminal of no width (a bare pty) sends ora's line arithmetic into an endless loop.
    return this.#streams.stderrIsTerminal && this.stderr.columns > 0;
  }

  /** A progress line on stderr (ora, on a terminal only), and data lines that lift it out of the way. */
  progress(text: string) {
    // Written a batch at a time: one write per line was the largest single cost of a bulk add.
    let pending: string[] = [];
    let pendingSize = 0;
    let scheduled: NodeJS.Immediate | undefined;
    let spinner: { text: string; clear(): unknown; render(): unknown; stop(): unknown } | undefined;
    const sharesTerminal = this.#streams.stdoutIsTerminal;
    const flush = () => {
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
      if (pending.length === 0) return;
      if (spinner !== undefined && sharesTerminal) spinner.clear();
      try {
        this.json(pending);
      } catch {
        // Kept in jqFailure: the runner reports it once the action ends.
      }
      if (spinner !== undefined && sharesTerminal) spinner.render();
      pending = [];
      pendingSize = 0;
    };
    let stopped = false;
    let latest = text;
    if (this.canAnimate) {
      void importOra().then(({ default: ora }) => {
        if (!stopped) spinner = ora({ text: latest, stream: this.stderr, discardStdin: false }).start();
      });
    }
    return {
      data: (line: string) => {
        pending.push(line);
        pendingSize += line.length;
        if (pendingSize > 64 * 1024) flush();
        else scheduled ??= setImmediate(flush);
      },
      update: (next: string) => {
        latest = next;
        if (spinner !== undefined) spinner.text = next;
      },
      stop: () => {
        flush();
        stopped = true;
        spinner?.stop();
      },
    };
  }

  /** Runs `work` with a spinner on stderr that appears only if it takes longer than `delayMs`. */
  async withSpinner<T>(text: string, work: () => Promise<T>, delayMs = 300): Promise<T> {
    if (!this.canAnimate) return work();
    let spinner: { stop(): void } | undefined;
    let done = false;
    const timer = setTimeout(() => {
      void importOra().then(({ default: ora }) => {
        if (!done) spinner = ora({ text, stream: this.stderr, discardStdin: false }).start();
      });
    }, delayMs);
    try {
      return await work();
    } finally {
      done = true;
      clearTimeout(timer);
      spinner?.stop();
    }
  }
}

/**
 * The JSON document `--json` prints for a failure: the server's own Error (its exact text), else
 * one whose `error` is the HTTP status, or 0 when no answer came (the exit code then says why).
 */
export function errorDocument(error: unknown): string {
  if (error instanceof NoAnswerError) {
    const status = error.cause instanceof ResponseError ? error.cause.status : 0;
    return JSON.stringify({ error: status, message: error.message, outcome: OUTCOME_UNKNOWN });
  }
  if (error instanceof ResponseError) return error.rawBody?.trim() ?? JSON.stringify(error.body);
  const message = error instanceof Error ? error.message : String(error);
  return JSON.stringify({ error: 0, message });
}
