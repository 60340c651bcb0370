import { parseJsonExact } from '../schema/exact-json.js';
import { type InputRecord, MAX_RECORD_CHARS, parseRecord, TOO_LONG } from './input-record.js';
import { JsonValueScanner } from './json-value-scanner.js';

// What a record is, for the reader's users: they read records, and need not know where the type lives.
export { type InputRecord, MAX_RECORD_CHARS, TOO_LONG } from './input-record.js';

/**
 * How the input was laid out: JSON documents one after another (one pretty-printed object, or
 * jq's default output), one value per line (NDJSON), or a JSON array.
 */
export type InputShape = 'document' | 'lines' | 'array';

function parses(text: string): boolean {
  try {
    parseJsonExact(text);
    return true;
  } catch {
    return false;
  }
}

const isBlank = (text: string) => text.trim() === '';

/**
 * Reads NewPlant records from a stream of text without holding more than a record (at most
 * MAX_RECORD_CHARS) or a chunk at a time. The layout is recognised from the content:
 * - starts with `[`: a JSON array, each element a record, elements may span lines;
 * - the first or the second non-blank line is a JSON value on its own: NDJSON, one record a
 *   line; a broken line is one bad record, and reading goes on at the next line;
 * - otherwise: JSON documents one after another, each a record (one pretty-printed object, or
 *   what `jq` prints by default).
 * A record longer than MAX_RECORD_CHARS is reported as soon as it is seen to be, and the rest
 * of it skipped unread. `shape` is known once the first record has been yielded.
 */
export class JsonRecordReader {
  shape: InputShape | undefined;
  readonly #chunks: AsyncIterator<string>;
  #buffer = '';
  #done = false;

  constructor(chunks: AsyncIterable<string>) {
    this.#chunks = chunks[Symbol.asyncIterator]();
  }

  async *records(): AsyncGenerator<InputRecord> {
    try {
      // Skip leading blank space (and a byte-order mark) to the first character that means something.
      let skippedLines = 0;
      for (;;) {
        const text = this.#buffer.replace(/^\uFEFF/, '');
        const firstNonBlank = text.search(/\S/);
        if (firstNonBlank !== -1) {
          skippedLines += countNewlines(text, firstNonBlank);
          this.#buffer = text.slice(firstNonBlank);
          break;
        }
        skippedLines += countNewlines(text, text.length);
        this.#buffer = '';
        if (!(await this.#read())) return;
      }
      const firstLine = skippedLines + 1;
      if (this.#buffer.startsWith('[')) {
        this.shape = 'array';
        yield* this.#scanValues(firstLine, true);
      } else if (await this.#looksLikeLines()) {
        this.shape = 'lines';
        yield* this.#lineRecords(firstLine);
      } else {
        this.shape = 'document';
        yield* this.#scanValues(firstLine, false);
      }
    } finally {
      // A reader left before the end (a bad record, a consumer that stops) lets its input go:
      // a file's stream closes its descriptor (Node 26 throws where one is garbage-collected).
      if (!this.#done) {
        this.#done = true;
        await this.#chunks.return?.();
      }
    }
  }

  async #read(): Promise<boolean> {
    if (this.#done) return false;
    const next = await this.#chunks.next();
    if (next.done) {
      this.#done = true;
      return false;
    }
    this.#buffer += next.value;
    return true;
  }

  /** NDJSON when the first or second non-blank line parses alone; a pretty document's lines do not. */
  async #looksLikeLines(): Promise<boolean> {
    const lines: string[] = [];
    let searchFrom = 0;
    while (lines.length < 2) {
      const newline = this.#buffer.indexOf('\n', searchFrom);
      if (newline === -1) {
        // A line longer than any record: as the first, lines (it is reported as that line);
        // after a first line that is not JSON alone, the start of a long document.
        if (this.#buffer.length - searchFrom > MAX_RECORD_CHARS) return lines.length === 0 || parses(lines[0] ?? '');
        if (await this.#read()) continue;
        const last = this.#buffer.slice(searchFrom);
        if (!isBlank(last)) lines.push(last);
        break;
      }
      const line = this.#buffer.slice(searchFrom, newline);
      if (line.length > MAX_RECORD_CHARS) return lines.length === 0 || parses(lines[0] ?? '');
      if (!isBlank(line)) lines.push(line);
      searchFrom = newline + 1;
    }
    if (lines.length < 2) return lines.length === 1 && parses(lines[0] ?? '');
    return lines.some(parses);
  }

  /**
   * The next record of a whole line already read, without waiting: undefined when no whole line
   * is buffered, or before the input is known to be NDJSON (then wait on `records()`, which reads
   * on). A bulk add takes most records this way: an await per record, through the generators
   * below, cost more than the record's own parsing (bench b).
   */
  takeBuffered(): InputRecord | undefined {
    return this.#lines === undefined ? undefined : this.#nextBufferedLine(this.#lines);
  }

  /** Set while NDJSON is read (#lineRecords): how far its lines are taken. */
  #lines: LinesRead | undefined;

  #nextBufferedLine(lines: LinesRead): InputRecord | undefined {
    for (;;) {
      const newline = this.#buffer.indexOf('\n', lines.start);
      if (newline === -1) return undefined;
      const text = this.#buffer.slice(lines.start, newline);
      const line = lines.line++;
      lines.start = newline + 1;
      if (lines.skipping) lines.skipping = false;
      else if (text.length > MAX_RECORD_CHARS) return { line, error: TOO_LONG };
      else if (!isBlank(text)) return parseRecord(text, line);
    }
  }

  async *#lineRecords(firstLine: number): AsyncGenerator<InputRecord> {
    const lines: LinesRead = { start: 0, line: firstLine, skipping: false };
    this.#lines = lines;
    for (;;) {
      for (let record = this.#nextBufferedLine(lines); record !== undefined; record = this.#nextBufferedLine(lines)) {
        yield record;
      }
      this.#buffer = this.#buffer.slice(lines.start);
      lines.start = 0;
      if (this.#buffer.length > MAX_RECORD_CHARS || lines.skipping) {
        if (!lines.skipping) yield { line: lines.line, error: TOO_LONG };
        lines.skipping = true;
        this.#buffer = '';
      }
      if (!(await this.#read())) break;
    }
    this.#lines = undefined;
    if (!lines.skipping && !isBlank(this.#buffer)) yield parseRecord(this.#buffer, lines.line);
    this.#buffer = '';
  }

  /** The input's JSON values, each a record: the elements of an array (`inArray`), else the documents at the top level. */
  async *#scanValues(firstLine: number, inArray: boolean): AsyncGenerator<InputRecord> {
    const scanner = new JsonValueScanner(firstLine, inArray);
    for (;;) {
      for (let record = scanner.next(this.#buffer); record !== undefined; record = scanner.next(this.#buffer)) {
        yield record;
      }
      if (scanner.stopped) return;
      const { keep, record } = scanner.endOfChunk(this.#buffer);
      if (record !== undefined) yield record;
      this.#buffer = keep;
      if (!(await this.#read())) break;
    }
    const last = scanner.endOfInput(this.#buffer);
    if (last !== undefined) yield last;
  }
}

/** NDJSON being read: where the next line starts in the buffer, its number, and whether a too-long line is being skipped. */
interface LinesRead {
  start: number;
  line: number;
  skipping: boolean;
}

function countNewlines(text: string, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++;
  return count;
}
