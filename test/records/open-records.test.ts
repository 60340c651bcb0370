import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import type { InputRecord } from '../../src/records/json-records.js';
import { NOT_UTF8 } from '../../src/records/json-records.js';
import { openRecords } from '../../src/records/open-records.js';
import { makeTempDir } from '../helpers/cli.js';

let dir: string;
let removeDir: () => void;
beforeEach(() => {
  ({ dir, remove: removeDir } = makeTempDir());
});
afterEach(() => removeDir());

const noStdin = (): NodeJS.ReadableStream => {
  throw new Error('stdin was asked for');
};

async function all(file: string, stdin = noStdin): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const record of (await openRecords(file, stdin)).records()) records.push(record);
  return records;
}

function fileOf(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('openRecords', () => {
  it('reads a file as records, ids exact, without touching stdin', async () => {
    const file = fileOf('plants.ndjson', '{"id":9007199254740993,"name":"a"}\n{"id":2,"name":"b"}\n');
    expect(await all(file)).toEqual([
      { line: 1, value: { id: 9007199254740993n, name: 'a' } },
      { line: 2, value: { id: 2, name: 'b' } },
    ]);
  });

  it('reads stdin for -', async () => {
    const stdin = () => Readable.from([Buffer.from('[{"id":1,"name":"a"},'), Buffer.from('{"id":2,"name":"b"}]')]);
    expect(await all('-', stdin)).toEqual([
      { line: 1, index: 0, value: { id: 1, name: 'a' } },
      { line: 1, index: 1, value: { id: 2, name: 'b' } },
    ]);
  });

  it.each([
    ['a missing file', () => path.join(dir, 'missing.json'), 'no such file'],
    ['a folder', () => dir, 'it is a folder'],
  ])('refuses %s before reading anything (exit 2)', async (_, file, why) => {
    const error = await openRecords(file(), noStdin).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toBe(`cannot read ${file()}: ${why}`);
  });

  it('refuses input that is not text by its first bytes, naming the file or stdin', async () => {
    const gzip = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
    const file = fileOf('plants.json.gz', gzip);
    await expect(openRecords(file, noStdin)).rejects.toThrow(new RegExp(`^${file} is .*; nothing was sent: `));
    await expect(openRecords('-', () => Readable.from([gzip]))).rejects.toThrow(/^stdin is .*; nothing was sent: /);
  });

  it('makes a record holding bytes that are not UTF-8 an error, and reads on', async () => {
    const file = fileOf(
      'latin1.ndjson',
      Buffer.concat([
        Buffer.from('{"id":1,"name":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}\n{"id":2,"name":"b"}\n'),
      ]),
    );
    expect(await all(file)).toEqual([
      { line: 1, error: NOT_UTF8 },
      { line: 2, value: { id: 2, name: 'b' } },
    ]);
  });

  it('reads an empty file as no records', async () => {
    expect(await all(fileOf('empty.json', ''))).toEqual([]);
  });
});
