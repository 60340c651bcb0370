/** Reads all of a stream as UTF-8 text (stdin for `--with-token`). */
export function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  // Events rather than `for await`: the async iterator machinery costs a `plants login` more to
  // load than the few bytes it reads.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
