import { InvalidInputError } from '../../errors.js';
import { canPrompt, promptSecret } from './prompt.js';
import { readStreamText } from './read-input.js';

/** The token for `plants login`: --token, else stdin with --with-token (unless a terminal), else a hidden prompt on a terminal. */
export async function obtainToken(
  flags: { token?: string | undefined; withToken: boolean },
  stdin: NodeJS.ReadStream,
  stderr: NodeJS.WriteStream,
): Promise<string> {
  if (flags.token !== undefined) return flags.token;
  // On a terminal, --with-token (what the serve banner suggests) is pasted: prompted and masked
  // as plain login, never echoed.
  if (flags.withToken && !canPrompt(stdin, stderr)) {
    // One trailing newline is what `echo` and files add; anything else is kept and checked.
    return (await readStreamText(stdin)).replace(/\r?\n$/, '');
  }
  if (!canPrompt(stdin, stderr)) {
    throw new InvalidInputError('no token given', {
      hints: ['Use --token TOKEN, or pipe it in with --with-token, or run `plants login` in a terminal.'],
    });
  }
  return promptSecret('Paste your token: ', stdin, stderr);
}
