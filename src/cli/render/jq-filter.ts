import type { Jq } from 'jq-wasm';
import { InvalidInputError } from '../../errors.js';

const JQ_MANUAL = 'jq’s manual: https://jqlang.org/manual/';

/**
 * `--jq`: a jq 1.8 program (jq-wasm) run over each JSON value a command prints. jq is given the
 * text plants would print, never numbers JavaScript parsed, so an id keeps every digit.
 */
export class JqFilter {
  readonly #jq: Jq;
  /**
   * Each output tagged, so that one run over many values tells what each gave: `[0, output]`,
   * `[1, error]`, `[2]` at the end of each. The newline keeps a trailing comment and `$__loc__` right.
   */
  readonly #program: string;
  /** The line of `--json`'s output the next value starts on, for jq's errors. */
  #line = 1;

  private constructor(jq: Jq, expression: string) {
    this.#jq = jq;
    this.#program = `(try ((${expression}\n) | [0, .]) catch [1, .]), [2]`;
  }

  /** jq, loaded, with the expression compiled on no input, so it runs nothing. */
  static async compile(expression: string): Promise<JqFilter> {
    const { loadJq } = await import('jq-wasm');
    const jq = await loadJq();
    const checked = jq.raw('', expression, ['-c']);
    if (checked.exitCode !== 0) {
      // Without the excerpt of the program under them (indented).
      const message = checked.stderr
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith(' '))
        .map((line) => line.replace(/:$/, ''))
        .join('; ');
      throw new InvalidInputError(`--jq: ${message}`, { hints: ['Nothing was sent.', JQ_MANUAL] });
    }
    return new JqFilter(jq, expression);
  }

  /** Runs the program over JSON texts in one run of jq, stopping at the first value it fails on. */
  run(texts: readonly string[]) {
    const result = this.#jq.raw(texts.join('\n'), this.#program, ['-c']);
    const lines: string[] = [];
    let done = 0;
    for (const line of result.stdout === '' ? [] : result.stdout.split('\n')) {
      if (line === '[2]') {
        this.#line += texts[done++]?.split('\n').length ?? 1;
        continue;
      }
      const text = line.slice(3, -1);
      if (line.startsWith('[1,')) {
        const message = text.startsWith('"') ? JSON.parse(text) : `(not a string): ${text}`;
        return { lines, stderr: result.stderr, error: this.#runtimeError(message) };
      }
      lines.push(text.startsWith('"') ? JSON.parse(text) : text);
    }
    // halt_error: jq stopped with what it wrote as its message.
    if (result.exitCode !== 0) return { lines, stderr: '', error: this.#runtimeError(result.stderr) };
    return { lines, stderr: result.stderr };
  }

  #runtimeError(message: string): InvalidInputError {
    return new InvalidInputError(`--jq: jq: error (at line ${this.#line}): ${message}`, {
      hints: ['The output stops there: what came before it was printed.', JQ_MANUAL],
    });
  }
}
