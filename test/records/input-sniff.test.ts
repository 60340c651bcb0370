import { describe, expect, it } from 'vitest';
import { sniffInput } from '../../src/records/input-sniff.js';

const said = (text: string) => sniffInput(Buffer.from(text, 'utf8'), '-')?.what;

describe('sniffInput: text that is not JSON', () => {
  it.each([
    ['two lines of prose', 'hello world\nthis is not json\n', 'not JSON (line 1 is not a JSON value)'],
    ['prose after blank lines', '\n  \nhello world\n', 'not JSON (line 3 is not a JSON value)'],
    ['one word, no newline', 'hello', 'not JSON (line 1 is not a JSON value)'],
    ['CSV', 'id,name\n1,Fern\n', 'CSV (comma- or tab-separated values), not JSON'],
  ])('%s: refused, naming the first line', (_name, text, what) => {
    expect(said(text)).toBe(what);
  });

  it.each([
    ['NDJSON', '{"id":1,"name":"Fern"}\n'],
    ['an array', '[\n  {"id":1,"name":"Fern"}\n]\n'],
    ['a broken first record, then a good one (NDJSON: each is judged)', 'tru\n{"id":1,"name":"Fern"}\n'],
    ['a JSON value that is no NewPlant (judged as a record)', '"Fern"\n'],
    ['nothing', ''],
    ['blank lines only', '\n  \n\t\n'],
    ['NUL bytes (the record reader says it is too long)', '\u0000\u0000\u0000'],
  ])('%s: left to the record reader', (_name, text) => {
    expect(said(text)).toBeUndefined();
  });
});
