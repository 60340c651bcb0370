import { parseJsonExact } from '../schema/exact-json.js';

/** How the input was laid out: one JSON document, one value per line (NDJSON), or a JSON array. */
export type InputShape = 'document' | 'lines' | 'array';

/** One record of the input, with the line it starts on: its parsed value, or why it is not JSON. */
export type InputRecord = { line: number; value: unknown } | { line: number; error: string };

/** The most a single JSON document (not NDJSON, not an array) may weigh: it is read whole. */
export const MAX_DOCUMENT_CHARS = 64 * 1024 * 1024;

function parseRecord(text: string, line: number): InputRecord {
  try {
    return { line, value: parseJsonExact(text) };
  } catch (error) {
    return { line, error: `not valid JSON: ${(error as Error).message}` };
  }
}

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
 * Reads NewPlant records from a stream of text without holding more than a record or a chunk
 * at a time (a single JSON document is the exception: it is read whole, up to 64 MiB). The
 * layout is recognised from the content:
 * - starts with `[`: a JSON array, each element a record, elements may span lines;
 * - the first or the second non-blank line is a JSON value on its own: NDJSON, one record a
 *   line; a broken line is one bad record, and reading goes on at the next line;
 * - otherwise: one JSON document (a pretty-printed object).
 * `shape` is known once the first record has been yielded.
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
    // Skip leading blank space (and a byte-order mark) to the first character that means something.
    let skippedLines = 0;
    for (;;) {
      const text = this.#buffer.replace(/^\uFEFF/, '');
      const firstNonBlank = text.search(/\S/);
      if (firstNonBlank !== -1) {
        skippedLines += countNewlines(text, 0, firstNonBlank);
        this.#buffer = text.slice(firstNonBlank);
        break;
      }
      skippedLines += countNewlines(text, 0, text.length);
      this.#buffer = '';
      if (!(await this.#read())) return;
    }
    const firstLine = skippedLines + 1;
    if (this.#buffer.startsWith('[')) {
      this.shape = 'array';
      yield* this.#arrayRecords(firstLine);
    } else if (await this.#looksLikeLines()) {
      this.shape = 'lines';
      yield* this.#lineRecords(firstLine);
    } else {
      this.shape = 'document';
      yield await this.#documentRecord(firstLine);
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
        if (await this.#read()) continue;
        const last = this.#buffer.slice(searchFrom);
        if (!isBlank(last)) lines.push(last);
        break;
      }
      const line = this.#buffer.slice(searchFrom, newline);
      if (!isBlank(line)) lines.push(line);
      searchFrom = newline + 1;
    }
    if (lines.length < 2) return lines.length === 1 && parses(lines[0] ?? '');
    return lines.some(parses);
  }

  async *#lineRecords(firstLine: number): AsyncGenerator<InputRecord> {
    let line = firstLine;
    for (;;) {
      let start = 0;
      let newline = this.#buffer.indexOf('\n');
      while (newline !== -1) {
        const text = this.#buffer.slice(start, newline);
        if (!isBlank(text)) yield parseRecord(text, line);
        line++;
        start = newline + 1;
        newline = this.#buffer.indexOf('\n', start);
      }
      this.#buffer = this.#buffer.slice(start);
      if (!(await this.#read())) break;
    }
    if (!isBlank(this.#buffer)) yield parseRecord(this.#buffer, line);
    this.#buffer = '';
  }

  async #documentRecord(line: number): Promise<InputRecord> {
    while (await this.#read()) {
      if (this.#buffer.length > MAX_DOCUMENT_CHARS) {
        return { line, error: 'not valid JSON, and too large to be one NewPlant (use NDJSON or an array)' };
      }
    }
    return parseRecord(this.#buffer, line);
  }

  /**
   * Splits a JSON array into its elements by scanning brackets and strings, so that a
   * million-element array streams; each element is then parsed on its own.
   */
  async *#arrayRecords(firstLine: number): AsyncGenerator<InputRecord> {
    let line = firstLine;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let closed = false;
    /** Where the element being scanned starts in the buffer, and its line; -1 between elements. */
    let start = -1;
    let startLine = line;
    let position = 0;
    for (;;) {
      const buffer = this.#buffer;
      for (; position < buffer.length; position++) {
        const char = buffer.charCodeAt(position);
        if (char === 10) line++;
        if (closed) {
          if (!isWhitespace(char)) {
            yield { line, error: 'unexpected content after the end of the JSON array' };
            return;
          }
          continue;
        }
        if (inString) {
          if (escaped) escaped = false;
          else if (char === 92) escaped = true;
          else if (char === 34) inString = false;
          continue;
        }
        if (depth === 1 && start === -1 && !isWhitespace(char) && char !== 44 && char !== 93) {
          start = position;
          startLine = line;
        }
        if (char === 34) inString = true;
        else if (char === 123 || char === 91) depth++;
        else if (char === 125 || char === 93) {
          depth--;
          if (depth === 0) {
            closed = true;
            if (start !== -1) yield parseRecord(buffer.slice(start, position), startLine);
            start = -1;
          }
        } else if (char === 44 && depth === 1) {
          yield start === -1
            ? { line, error: 'an empty element in the JSON array' }
            : parseRecord(buffer.slice(start, position), startLine);
          start = -1;
        }
      }
      // Keep only the element being scanned; everything before it is done with.
      const keepFrom = start === -1 ? buffer.length : start;
      this.#buffer = buffer.slice(keepFrom);
      position -= keepFrom;
      if (start !== -1) start = 0;
      if (!(await this.#read())) break;
    }
    if (!closed) {
      yield {
        line: start === -1 ? line : startLine,
        error: 'not valid JSON: the input ends inside the JSON array (missing "]")',
      };
    }
  }
}

function isWhitespace(char: number): boolean {
  return char === 32 || char === 10 || char === 13 || char === 9;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count++;
  return count;
}
