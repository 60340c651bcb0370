import { ExitCode, InvalidInputError, PlantsError } from '../../errors.js';
import type { IOStreams } from '../io-streams.js';

/** Asks for a secret on a terminal, echoing `*` so that the token never shows in the scrollback. */
export function promptSecret(question: string, { stdin, stderr }: IOStreams): Promise<string> {
  // Raw mode before the question, so nothing typed after it is echoed by the terminal.
  stdin.setRawMode(true);
  stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (settle: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      settle();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(() => resolve(value));
        if (char === '\u0003' || (char === '\u0004' && value === '')) {
          return finish(() => reject(new PlantsError('cancelled', { exitCode: ExitCode.interrupted })));
        }
        if (char === '\u007f' || char === '\b') {
          if (value.length > 0) {
            value = value.slice(0, -1);
            stderr.write('\b \b');
          }
        } else if (char >= ' ') {
          value += char;
          stderr.write('*');
        }
      }
    };
    stdin.on('data', onData);
  });
}

export async function confirm(question: string, io: IOStreams): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  const prompt = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return await new Promise<boolean>((resolve, reject) => {
      prompt.on('SIGINT', () => reject(new PlantsError('cancelled', { exitCode: ExitCode.interrupted })));
      prompt.on('close', () => resolve(false));
      prompt.question(question, (answer) => resolve(/^y(es)?$/i.test(answer.trim())));
    });
  } finally {
    prompt.close();
  }
}

export async function obtainToken(
  flags: { token?: string | undefined; withToken: boolean },
  io: IOStreams,
): Promise<string> {
  if (flags.token !== undefined) return flags.token;
  // On a terminal --with-token (as the serve banner suggests) is prompted for too, never echoed.
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

function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  // Not `for await`: its machinery costs `plants login` more to load than the few bytes it reads.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.once('error', reject);
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
