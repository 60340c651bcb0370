import { InvalidInputError } from '../../errors.js';
import type { IOStreams } from '../io-streams.js';
import { promptSecret } from './prompt.js';

/** The token for `plants login`: --token, else stdin with --with-token (unless a terminal), else a hidden prompt on a terminal. */
export async function obtainToken(
  flags: { token?: string | undefined; withToken: boolean },
  io: IOStreams,
): Promise<string> {
  if (flags.token !== undefined) return flags.token;
  // On a terminal, --with-token (what the serve banner suggests) is pasted: prompted and masked
  // as plain login, never echoed.
  if (flags.withToken && !io.canPrompt()) {
    // One trailing newline is what `echo` and files add; anything else is kept and checked.
    return (await readStreamText(io.stdin)).replace(/\r?\n$/, '');
  }
  if (!io.canPrompt()) {
    throw new InvalidInputError('no token given', {
      hints: ['Use --token TOKEN, or pipe it in with --with-token, or run `plants login` in a terminal.'],
    });
  }
  return promptSecret('Paste your token: ', io);
}

/** Reads all of a stream as UTF-8 text (stdin for `--with-token`). */
function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  // Events rather than `for await`: the async iterator machinery costs a `plants login` more to
  // load than the few bytes it reads.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
