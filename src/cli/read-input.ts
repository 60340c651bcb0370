import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors.js';

/** Reads all of a stream as UTF-8 text (stdin for `--file -` and `--with-token`). */
export async function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The text of `--file PATH`, or of stdin when PATH is `-`. Unreadable input is exit 2. */
export async function readInputText(file: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (file === '-') return readStreamText(stdin);
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (error as Error).message;
    throw new InvalidInputError(`cannot read ${file}: ${why}`, { cause: error });
  }
}
