import { type FileHandle, open } from 'node:fs/promises';
import { InvalidInputError } from '../errors.js';
import { whyUnreadable } from '../files/unreadable-file.js';
import { sniffInput } from './input-sniff.js';
import { JsonRecordReader } from './json-records.js';
import { decodeUtf8Strictly } from './utf8-text.js';

/**
 * The records of `file` (`-`: stdin): a file that cannot be read refused before anything else, then
 * one that is not text; bytes that are not UTF-8 make their record an error. Refusals are exit 2.
 */
export async function openRecords(file: string, stdin: () => NodeJS.ReadableStream): Promise<JsonRecordReader> {
  const bytes = file === '-' ? (stdin() as AsyncIterable<Buffer>) : await openFile(file);
  return new JsonRecordReader(decodeUtf8Strictly(await sniffed(bytes, file)));
}

async function openFile(file: string): Promise<AsyncIterable<Buffer>> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error('is a folder'), { code: 'EISDIR' });
    }
  } catch (error) {
    throw new InvalidInputError(`cannot read ${file}: ${whyUnreadable(error)}`, { cause: error });
  }
  return handle.createReadStream({ highWaterMark: 256 * 1024 });
}

/** The input's chunks once the first was found to be text: only the first, so a slow producer is not waited for. */
async function sniffed(chunks: AsyncIterable<Buffer>, file: string): Promise<AsyncIterable<Buffer>> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done !== true) {
    const head = typeof first.value === 'string' ? Buffer.from(first.value) : first.value;
    const notText = sniffInput(head, file);
    if (notText !== undefined) {
      await iterator.return?.();
      throw new InvalidInputError(
        `${file === '-' ? 'stdin' : file} is ${notText.what}; nothing was sent: ${notText.todo}`,
      );
    }
  }
  return {
    async *[Symbol.asyncIterator]() {
      if (first.done === true) return;
      let ended = false;
      try {
        yield first.value;
        for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
        ended = true;
      } finally {
        // Left before the end: the file's stream closes its descriptor.
        if (!ended) await iterator.return?.();
      }
    },
  };
}
