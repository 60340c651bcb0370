import { describe, expect, it } from 'vitest';
import { type InputRecord, JsonRecordReader, MAX_RECORD_CHARS, TOO_LONG } from '../../src/records/json-records.js';

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let index = 0; index < text.length; index += size) yield text.slice(index, index + size);
}

async function read(text: string, size = 7): Promise<{ shape: string | undefined; records: InputRecord[] }> {
  const reader = new JsonRecordReader(chunksOf(text, size));
  const records: InputRecord[] = [];
  for await (const record of reader.records()) records.push(record);
  return { shape: reader.shape, records };
}

const values = (records: InputRecord[]) => records.map((record) => ('value' in record ? record.value : record.error));
const lines = (records: InputRecord[]) => records.map((record) => record.line);

describe('JsonRecordReader', () => {
  it('lets its input go when left before the end, and not when read to the end', async () => {
    const text = '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n{"id":3,"name":"c"}\n';
    const source = (ended: { returned: number }) => ({
      [Symbol.asyncIterator]() {
        const chunks = chunksOf(text, 5);
        return {
          next: () => chunks.next(),
          return: async () => {
            ended.returned += 1;
            return chunks.return(undefined);
          },
        };
      },
    });
    const leftEarly = { returned: 0 };
    for await (const record of new JsonRecordReader(source(leftEarly)).records()) {
      if (record.line === 2) break;
    }
    expect(leftEarly.returned).toBe(1);
    const readThrough = { returned: 0 };
    const reader = new JsonRecordReader(source(readThrough));
    const records: InputRecord[] = [];
    for await (const record of reader.records()) records.push(record);
    expect(lines(records)).toEqual([1, 2, 3]);
    expect(readThrough.returned).toBe(0);
  });

  it.each([1, 3, 7, 1000])('reads one pretty-printed object as one document (chunks of %i)', async (size) => {
    const { shape, records } = await read('\n\n{\n  "id": 9223372036854775807,\n  "name": "Fern"\n}\n', size);
    expect(shape).toBe('document');
    expect(records).toEqual([{ line: 3, value: { id: 9223372036854775807n, name: 'Fern' } }]);
  });

  it.each([1, 5, 1000])(
    'reads NDJSON line by line with line numbers, skipping blank lines (chunks of %i)',
    async (size) => {
      const { shape, records } = await read(
        '{"id":1,"name":"a"}\r\n\n{"id":2,"name":"b"}\n   \n{"id":3,"name":"c"}',
        size,
      );
      expect(shape).toBe('lines');
      expect(lines(records)).toEqual([1, 3, 5]);
      expect(values(records)).toEqual([
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
        { id: 3, name: 'c' },
      ]);
    },
  );

  it('reports a broken NDJSON line and goes on with the next, even when it is the first', async () => {
    const { shape, records } = await read('{"id":1,"name":\n{"id":2,"name":"b"}\nnot json\n{"id":4,"name":"d"}\n');
    expect(shape).toBe('lines');
    expect(lines(records)).toEqual([1, 2, 3, 4]);
    expect('error' in (records[0] as InputRecord)).toBe(true);
    expect(values(records)[1]).toEqual({ id: 2, name: 'b' });
    expect('error' in (records[2] as InputRecord)).toBe(true);
    expect(values(records)[3]).toEqual({ id: 4, name: 'd' });
  });

  it.each([1, 4, 1000])(
    'streams the elements of a JSON array, multi-line ones included (chunks of %i)',
    async (size) => {
      const text = '[\n  {"id": 1, "name": "a, [b]"},\n  {\n    "id": 2,\n    "name": "c\\"}"\n  },\n  3\n]\n';
      const { shape, records } = await read(text, size);
      expect(shape).toBe('array');
      expect(lines(records)).toEqual([2, 3, 7]);
      expect(values(records)).toEqual([{ id: 1, name: 'a, [b]' }, { id: 2, name: 'c"}' }, 3]);
    },
  );

  it('reports a bad element of an array and goes on', async () => {
    const { records } = await read('[{"id":1,"name":"a"},{"id":,},,{"id":3,"name":"c"}]');
    expect(values(records)[0]).toEqual({ id: 1, name: 'a' });
    expect((records[1] as { error: string }).error).toMatch(/^not valid JSON/);
    expect((records[2] as { error: string }).error).toBe('an empty element in the JSON array');
    expect(values(records)[3]).toEqual({ id: 3, name: 'c' });
  });

  it('reports an array that never closes, and content after one that does', async () => {
    const open = await read('[{"id":1,"name":"a"},\n{"id":2');
    expect(values(open.records)[0]).toEqual({ id: 1, name: 'a' });
    expect((open.records[1] as { error: string }).error).toContain('missing "]"');
    const trailing = await read('[{"id":1,"name":"a"}]\n{"id":2}');
    expect(trailing.records).toHaveLength(2);
    expect((trailing.records[1] as { error: string }).error).toContain('after the end of the JSON array');
  });

  it('yields nothing for empty or blank input, and an error for a broken document', async () => {
    expect((await read('')).records).toEqual([]);
    expect((await read(' \n\t\n')).records).toEqual([]);
    const broken = await read('{\n  "id": 1,\n  "name": \n');
    expect(broken.shape).toBe('document');
    expect((broken.records[0] as { error: string }).error).toMatch(/^not valid JSON/);
  });

  it('streams a long array element by element', async () => {
    const count = 20_000;
    async function* big(): AsyncGenerator<string> {
      yield '[';
      for (let index = 0; index < count; index++) yield `${index === 0 ? '' : ','}{"id":${index},"name":"p${index}"}`;
      yield ']';
    }
    const reader = new JsonRecordReader(big());
    let seen = 0;
    for await (const record of reader.records()) {
      expect(record).toEqual({ line: 1, index: seen, value: { id: seen, name: `p${seen}` } });
      seen++;
    }
    expect(seen).toBe(count);
  });

  it.each([1, 3, 1000])('reads JSON documents one after another, as jq prints them (chunks of %i)', async (size) => {
    const { shape, records } = await read(
      '{\n  "id": 1,\n  "name": "a"\n}\n{\n  "id": 2,\n  "name": "b}"\n}\n7 "x"\n',
      size,
    );
    expect(shape).toBe('document');
    expect(records).toEqual([
      { line: 1, value: { id: 1, name: 'a' } },
      { line: 5, value: { id: 2, name: 'b}' } },
      { line: 9, value: 7 },
      { line: 9, value: 'x' },
    ]);
  });

  it.each([
    ['a line', (chunk: string) => chunk],
    ['an array element', (chunk: string, first: boolean) => (first ? `[{"name":"${chunk}` : chunk)],
    ['a document', (chunk: string, first: boolean) => (first ? `{\n"name":"${chunk}` : chunk)],
  ])('reports %s longer than any record as soon as it is, without reading to its end', async (_what, make) => {
    async function* endless(): AsyncGenerator<string> {
      for (let first = true; ; first = false) yield make('z'.repeat(4096), first);
    }
    const reader = new JsonRecordReader(endless());
    const first = await reader.records().next();
    expect(first.value).toMatchObject({ line: 1, error: TOO_LONG });
  });

  it('skips a record longer than any can be and goes on with the next, in every layout', async () => {
    const long = 'q'.repeat(MAX_RECORD_CHARS + 10);
    const lines = await read(`{"id":1,"name":"a"}\n{"name":"${long}"}\n{"id":3,"name":"c"}\n`, 4096);
    expect(lines.records.map((record) => ('error' in record ? [record.line, record.error] : [record.line]))).toEqual([
      [1],
      [2, TOO_LONG],
      [3],
    ]);
    const array = await read(`[{"id":1,"name":"a"},\n{"name":"${long}"},\n{"id":3,"name":"c"}]`, 4096);
    expect(array.records.map((record) => [record.line, record.index, 'error' in record ? record.error : 'ok'])).toEqual(
      [
        [1, 0, 'ok'],
        [2, 1, TOO_LONG],
        [3, 2, 'ok'],
      ],
    );
  });

  describe('takeBuffered (the records a bulk add takes without waiting)', () => {
    /** Reads as a bulk add does: whole buffered records first, the iterator when there are none. */
    async function readTaking(text: string, size: number): Promise<{ records: InputRecord[]; taken: number }> {
      const reader = new JsonRecordReader(chunksOf(text, size));
      const iterator = reader.records();
      const records: InputRecord[] = [];
      let taken = 0;
      for (;;) {
        const buffered = reader.takeBuffered();
        if (buffered !== undefined) {
          taken++;
          records.push(buffered);
          continue;
        }
        const next = await iterator.next();
        if (next.done === true) break;
        records.push(next.value);
      }
      return { records, taken };
    }

    const long = 'x'.repeat(MAX_RECORD_CHARS + 10);
    const inputs = {
      ndjson: Array.from({ length: 200 }, (_, index) => `{"id":${index + 1},"name":"p${index}"}`).join('\n'),
      'blank and broken lines, CRLF, no newline at the end':
        '\n{"id":1,"name":"a"}\r\n\n  \nnot json\n{"id":9223372036854775807,"name":"b"}\n{"id":3,"name":"c"}',
      'a line too long, then more': `{"id":1,"name":"a"}\n{"id":2,"name":"${long}"}\n{"id":3,"name":"c"}\n`,
      'a first line too long': `{"id":1,"name":"${long}"}\n{"id":2,"name":"b"}\n{"id":3,"name":"c"}\n`,
      array: '[{"id":1,"name":"a"},\n{"id":2,"name":"b"}]',
      documents: '{\n  "id": 1,\n  "name": "a"\n}\n{\n  "id": 2,\n  "name": "b"\n}\n',
    };

    it.each(Object.entries(inputs).flatMap(([name, text]) => [1, 7, 64, 100_000].map((size) => [name, size, text])))(
      '%s, chunks of %i: the same records, in the same order, as reading them one by one',
      async (_name, size, text) => {
        const expected = await read(text as string, size as number);
        const { records } = await readTaking(text as string, size as number);
        expect(records).toEqual(expected.records);
      },
    );

    it('takes most NDJSON records without waiting, and none of an array or of documents', async () => {
      expect((await readTaking(inputs.ndjson, 64 * 1024)).taken).toBeGreaterThanOrEqual(190);
      expect((await readTaking(inputs.array, 64 * 1024)).taken).toBe(0);
      expect((await readTaking(inputs.documents, 64 * 1024)).taken).toBe(0);
    });
  });
});
