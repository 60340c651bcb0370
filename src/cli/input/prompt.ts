import { ExitCode, PlantsError } from '../../errors.js';
import type { IOStreams } from '../io-streams.js';

/**
 * Asks for a secret on a terminal, echoing `*` for each character so the token never
 * shows on screen or in the scrollback. Ctrl-C cancels with exit 130.
 */
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

/** Asks a yes/no question on a terminal; only `y` or `yes` is yes. Ctrl-C cancels with exit 130. */
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
