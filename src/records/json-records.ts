import { parseJsonExact } from '../schema/exact-json.js';

/** A record, with the line it starts on (and its index in a JSON array): its value, or why it is not one. */
export type InputRecord =
  | { line: number; index?: number; value: unknown }
  | { line: number; index?: number; error: string };

/**
 * A NewPlant is under 8 KB (a 1,024-character name and tag, each character at most a 6-character
 * escape); anything longer is refused unread, so no input (/dev/zero) takes more memory than this.
 */
export const MAX_RECORD_CHARS = 64 * 1024;

export const TOO_LONG = 'too long: more than 64 KiB, longer than any NewPlant can be (not read)';

export const NOT_UTF8 = 'not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)';

/** A lone low surrogate: what decodeUtf8Strictly puts for a byte that is not UTF-8. */
const notUtf8Marker = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

export function parseRecord(text: string, line: number, index?: number): InputRecord {
  if (!text.isWellFormed() && notUtf8Marker.test(text)) return failed(line, index, NOT_UTF8);
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    return failed(line, index, `not valid JSON: ${(error as Error).message}`);
  }
  // One object per record, built whole (every record of a long input passes here).
  return index === undefined ? { line, value } : { line, index, value };
}

export function failed(line: number, index: number | undefined, error: string): InputRecord {
  return index === undefined ? { line, error } : { line, index, error };
}

/** `document`: JSON documents one after another (one pretty-printed object, jq's default output). */
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
 * Reads records from a stream of text holding no more than a record or a chunk at a time, the
 * layout recognised from the content: a JSON array when it starts with `[`; NDJSON when the first
 * or second non-blank line is a JSON value alone (a broken line is one bad record); else documents.
 * A record too long is reported once seen to be, the rest of it skipped unread.
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
      // A reader left before the end lets its input go: a file's stream closes its descriptor
      // (Node 26 throws where one is garbage-collected).
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
        // A line longer than any record: as the first, lines; after one that is not JSON, a long document.
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
   * The next NDJSON record whole in the buffer, without waiting (else wait on `records()`): an await
   * per record, through the generators, cost a bulk add more than the record's parsing (bench b).
   */
  takeBuffered(): InputRecord | undefined {
    return this.#lines === undefined ? undefined : this.#nextBufferedLine(this.#lines);
  }

  /** Set while NDJSON is read. */
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

interface LinesRead {
  /** Where the next line starts in the buffer. */
  start: number;
  line: number;
  /** A too-long line is being skipped. */
  skipping: boolean;
}

function countNewlines(text: string, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/**
 * Splits text into JSON values (an array's elements, or the top-level documents) by scanning
 * brackets and strings, so that a million-element array streams; each value is parsed on its own.
 */
export class JsonValueScanner {
  readonly #inArray: boolean;
  readonly #recordDepth: number;
  #line: number;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The array's `]` was read: only white space may follow. */
  #closed = false;
  /** -1 between values. */
  #start = -1;
  #startLine: number;
  /** A scalar at the top level: it ends at white space or a bracket. */
  #scalar = false;
  /** The value being scanned was reported as too long: scan on to its end, keeping nothing. */
  #skipping = false;
  #index = 0;
  #position = 0;
  /** Something follows the array: that was reported, and nothing more is read. */
  stopped = false;

  constructor(firstLine: number, inArray: boolean) {
    this.#inArray = inArray;
    this.#recordDepth = inArray ? 1 : 0;
    this.#line = firstLine;
    this.#startLine = firstLine;
  }

  /**
   * The next record whole in `buffer`, scanning on from the last call. The state lives in locals while
   * it scans (a field access per character costs a long input dearly), saved once on the way out.
   */
  next(buffer: string): InputRecord | undefined {
    if (this.stopped) return undefined;
    const inArray = this.#inArray;
    const recordDepth = this.#recordDepth;
    let line = this.#line;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let closed = this.#closed;
    let start = this.#start;
    let startLine = this.#startLine;
    let scalar = this.#scalar;
    let position = this.#position;
    let record: InputRecord | undefined;
    for (; position < buffer.length; position++) {
      const char = buffer.charCodeAt(position);
      if (closed) {
        if (char === 10) line++;
        if (isWhitespace(char)) continue;
        record = { line, error: 'unexpected content after the end of the JSON array' };
        this.stopped = true;
        break;
      }
      if (inString) {
        if (char === 10) line++;
        if (escaped) escaped = false;
        else if (char === 92) escaped = true;
        else if (char === 34) {
          inString = false;
          if (scalar) {
            record = this.#finish(buffer, start, position + 1, startLine);
            start = -1;
            scalar = false;
          }
        }
        if (record === undefined) continue;
        position++;
        break;
      }
      if (scalar) {
        if (!isWhitespace(char) && char !== 123 && char !== 91 && char !== 44 && char !== 93) continue;
        record = this.#finish(buffer, start, position, startLine);
        start = -1;
        scalar = false;
        // The character that ended the scalar is scanned again, as what comes after it.
        if (record !== undefined) break;
      }
      if (char === 10) line++;
      if (depth === recordDepth && start === -1 && !isWhitespace(char) && char !== 44 && char !== 93) {
        start = position;
        startLine = line;
        if (!inArray && char !== 123 && char !== 91) {
          scalar = true;
          if (char === 34) inString = true;
          continue;
        }
      }
      if (char === 34) inString = true;
      else if (char === 123 || char === 91) depth++;
      else if (char === 125 || char === 93) {
        if (depth === 0) {
          record = { line, error: `not valid JSON: an unexpected "${String.fromCharCode(char)}"` };
        } else {
          depth--;
          if (depth === 0 && start !== -1) {
            record = this.#finish(buffer, start, inArray ? position : position + 1, startLine);
            start = -1;
            scalar = false;
          }
          if (inArray && depth === 0) closed = true;
        }
      } else if (char === 44 && depth === 1 && inArray) {
        if (start === -1) {
          record = { line, index: this.#index++, error: 'an empty element in the JSON array' };
        } else {
          record = this.#finish(buffer, start, position, startLine);
          start = -1;
          scalar = false;
        }
      }
      if (record !== undefined) {
        position++;
        break;
      }
    }
    this.#line = line;
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    this.#closed = closed;
    this.#start = start;
    this.#startLine = startLine;
    this.#scalar = scalar;
    this.#position = position;
    return record;
  }

  /** The value from `start` to `end` as a record; none for the end of one reported too long. */
  #finish(buffer: string, start: number, end: number, startLine: number): InputRecord | undefined {
    if (this.#skipping) {
      this.#skipping = false;
      return undefined;
    }
    const index = this.#inArray ? this.#index++ : undefined;
    return end - start > MAX_RECORD_CHARS
      ? failed(startLine, index, TOO_LONG)
      : parseRecord(buffer.slice(start, end), startLine, index);
  }

  /** What of a scanned buffer to keep (the value being scanned), and that value once it is too long. */
  endOfChunk(buffer: string): { keep: string; record: InputRecord | undefined } {
    let record: InputRecord | undefined;
    if (this.#start !== -1 && !this.#skipping && this.#position - this.#start > MAX_RECORD_CHARS) {
      record = failed(this.#startLine, this.#inArray ? this.#index++ : undefined, TOO_LONG);
      this.#skipping = true;
    }
    const keepFrom = this.#start === -1 || this.#skipping ? buffer.length : this.#start;
    this.#position -= keepFrom;
    if (this.#start !== -1) this.#start = this.#skipping ? 0 : this.#start - keepFrom;
    return { keep: buffer.slice(keepFrom), record };
  }

  /** What the end of the input leaves in `buffer`: an array not closed, a document cut off, or a last scalar. */
  endOfInput(buffer: string): InputRecord | undefined {
    if (this.stopped) return undefined;
    if (this.#inArray) {
      if (this.#closed) return undefined;
      return {
        line: this.#start === -1 ? this.#line : this.#startLine,
        error: 'not valid JSON: the input ends inside the JSON array (missing "]")',
      };
    }
    if (this.#start === -1 || this.#skipping) return undefined;
    if (this.#scalar && !this.#inString) return parseRecord(buffer.slice(this.#start), this.#startLine);
    return { line: this.#startLine, error: 'not valid JSON: the input ends inside a JSON document' };
  }
}

function isWhitespace(char: number): boolean {
  return char === 32 || char === 10 || char === 13 || char === 9;
}
