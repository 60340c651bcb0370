/** What IOStreams is made of: the three streams, stdin made on first use when given as a function. */
export interface IOStreamsOptions {
  /**
   * stdin, or a function that makes it: Node makes process.stdin on first use (for a pipe that
   * loads node:net), so a command that never reads it never pays for it.
   */
  stdin: NodeJS.ReadStream | (() => NodeJS.ReadStream);
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/**
 * The streams a command reads and writes, and whether each is a terminal (after gh's
 * iostreams.IOStreams). Made once from the process at the edges (PlantsCommand for oclif,
 * runCommand for the fast route) and handed down through the Factory and the Output: nothing
 * below them touches process.stdin, process.stdout or process.stderr, so a test runs a
 * command in-process with streams of its own (a stream is a terminal when its `isTTY` is true,
 * as Node marks a tty.ReadStream or tty.WriteStream).
 */
export class IOStreams {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  #stdin: NodeJS.ReadStream | undefined;
  readonly #makeStdin: () => NodeJS.ReadStream;

  constructor(options: IOStreamsOptions) {
    const { stdin } = options;
    this.#makeStdin = typeof stdin === 'function' ? stdin : () => stdin;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
  }

  get stdin(): NodeJS.ReadStream {
    this.#stdin ??= this.#makeStdin();
    return this.#stdin;
  }

  get stdinIsTerminal(): boolean {
    return this.stdin.isTTY === true;
  }

  get stdoutIsTerminal(): boolean {
    return this.stdout.isTTY === true;
  }

  get stderrIsTerminal(): boolean {
    return this.stderr.isTTY === true;
  }

  /** True when a person can answer a prompt: stdin and stderr are both terminals. */
  canPrompt(): boolean {
    return this.stdinIsTerminal && this.stderrIsTerminal;
  }
}

/** The process's own streams: what the edges hand down. */
export function processStreams(): IOStreams {
  return new IOStreams({ stdin: () => process.stdin, stdout: process.stdout, stderr: process.stderr });
}
