import { InvalidInputError } from '../../errors.js';
import type { IOStreams } from '../io-streams.js';
import { promptSecret } from './prompt.js';
import { readStreamText } from './read-input.js';

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
  return promptSecret('Paste your token: ', io.stdin, io.stderr);
}
