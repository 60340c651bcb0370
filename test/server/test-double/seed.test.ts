import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { readSeedFile } from '../../../src/server/test-double/seed.js';
import { makeTempDir } from '../../helpers/cli.js';

const temp = makeTempDir();
afterAll(() => temp.remove());

/** This process's descriptors open on `file` (Linux: /proc/self/fd). */
function descriptorsOn(file: string): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // gone since the listing, or readdir's own descriptor
    }
  });
}

function file(name: string, text: string): string {
  const at = path.join(temp.dir, name);
  writeFileSync(at, text);
  return at;
}

describe('readSeedFile: the reader and schema of add --file', () => {
  it('reads NDJSON, ids exact, blank lines skipped, an id given twice alike kept once', async () => {
    const at = file(
      'ok.ndjson',
      '{"id":9223372036854775807,"name":"Max"}\n\n{"id":1,"name":"Fern","tag":"herb","extra":1}\n{"id":1,"name":"Fern","tag":"herb"}\n',
    );
    const seed = await readSeedFile(at);
    expect(seed.plants).toEqual([
      { id: 9223372036854775807n, name: 'Max' },
      { id: 1n, name: 'Fern', tag: 'herb' },
    ]);
    expect(seed.where).toEqual(['line 1', 'line 3']);
  });

  it('reads a JSON array over several lines, and an empty one', async () => {
    const seed = await readSeedFile(
      file('ok.json', '[\n  {"id": -9223372036854775808, "name": "Min"},\n  {"id": 2, "name": "Ivy"}\n]\n'),
    );
    expect(seed.plants).toEqual([
      { id: -9223372036854775808n, name: 'Min' },
      { id: 2n, name: 'Ivy' },
    ]);
    expect((await readSeedFile(file('empty.json', '[]'))).plants).toEqual([]);
  });

  it.each([
    [
      'bad-field.ndjson',
      '{"id":1,"name":"Fern"}\n{"id":2,"name":""}\n',
      'line 2: invalid plant: name: must not be empty',
    ],
    ['not-json.ndjson', '{"id":1,"name":"Fern"}\n{"id":2,\n', 'line 2: not valid JSON'],
    ['bad-id.ndjson', '{"id":1,"name":"a"}\n{"id":9223372036854775808,"name":"b"}\n', 'line 2: invalid plant: id:'],
    [
      'bad-element.json',
      '[\n {"id":1,"name":"a"},\n {"id":"2","name":"b"}\n]',
      'line 3 (array index 1): invalid plant: id:',
    ],
    ['clash.ndjson', '{"id":1,"name":"a"}\n{"id":1,"name":"b"}\n', 'line 2: id 1 is also at line 1, with other fields'],
  ])('%s: exit 2 naming the file and where', async (name, text, why) => {
    const at = file(name, text);
    const reading = readSeedFile(at);
    await expect(reading).rejects.toBeInstanceOf(InvalidInputError);
    await expect(readSeedFile(at)).rejects.toThrow(`--seed ${at}: ${why}`);
    // Refused before the end of the file, it is closed all the same (Node 26 throws on a
    // descriptor left for the garbage collector to close).
    await vi.waitFor(() => expect(descriptorsOn(at)).toEqual([]), { timeout: 2000 });
  });

  it('names a missing file or a folder in the words of add --file', async () => {
    await expect(readSeedFile(path.join(temp.dir, 'nope.ndjson'))).rejects.toThrow(
      `--seed ${path.join(temp.dir, 'nope.ndjson')}: cannot read it: no such file`,
    );
    const folder = path.join(temp.dir, 'folder');
    mkdirSync(folder);
    await expect(readSeedFile(folder)).rejects.toThrow(`--seed ${folder}: cannot read it: it is a folder`);
  });
});
