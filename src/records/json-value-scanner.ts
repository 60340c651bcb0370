import { failed, type InputRecord, MAX_RECORD_CHARS, parseRecord, TOO_LONG } from './input-record.js';

/**
 * Splits text into JSON values by scanning brackets and strings, so that a million-element array
 * streams; each value is then parsed on its own. In an array (`inArray`) the values are its
 * elements; otherwise they are the documents at the top level. The reader hands it its buffer
 * chunk after chunk: `next` takes the records whole in it one by one, `endOfChunk` says what of
 * the buffer to keep, and `endOfInput` what an input that ends leaves.
 */
export class JsonValueScanner {
  readonly #inArray: boolean;
  /** The depth at which a record starts: inside the array, or at the top level. */
  readonly #recordDepth: number;
  #line: number;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The array's `]` was read: only white space may follow. */
  #closed = false;
  /** Where the value being scanned starts in the buffer, and its line; -1 between values. */
  #start = -1;
  #startLine: number;
  /** A scalar at the top level (not an array or object): it ends at white space or a bracket. */
  #scalar = false;
  /** The value being scanned was reported as too long: scan on to its end, keeping nothing. */
  #skipping = false;
  /** The array index of the next record. */
  #index = 0;
  /** Where in the buffer scanning goes on. */
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
   * The next record whole in `buffer`, scanning on from where the last call stopped; undefined
   * once the buffer is scanned to its end. The state lives in locals while it scans (a field a
   * character costs the scan of a long input dearly), saved once on the way out.
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
          // A string, number or stray character as a document of its own.
          scalar = true;
          if (char === 34) inString = true;
          continue;
        }
      }
      if (char === 34) inString = true;
      else if (char === 123 || char === 91) depth++;
      else if (char === 125 || char === 93) {
        if (depth === 0) {
          // A closing bracket with nothing open: a broken document.
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

  /**
   * Once `buffer` is scanned to its end: what of it to keep (only the value being scanned), and
   * that value reported too long once it has grown so (the rest of it is then skipped, unkept).
   */
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
