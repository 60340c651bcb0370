/**
 * The streams a command reads and writes, and whether each is a terminal (after gh's IOStreams):
 * nothing below the runner touches process's streams, so tests run commands in-process. A stream
 * may be a function called on first use: making process.stdin for a pipe loads node:net, so a
 * command that never reads it never pays for it, and one that succeeds quietly never makes stderr.
 */
export class IOStreams {
  readonly #stdin: () => NodeJS.ReadStream;
  readonly #stdout: () => NodeJS.WriteStream;
  readonly #stderr: () => NodeJS.WriteStream;
  readonly #isTerminal: ((fd: 0 | 1 | 2) => boolean) | undefined;

  constructor(options: {
    stdin: NodeJS.ReadStream | (() => NodeJS.ReadStream);
    stdout: NodeJS.WriteStream | (() => NodeJS.WriteStream);
    stderr: NodeJS.WriteStream | (() => NodeJS.WriteStream);
    /** Whether fd 0, 1 or 2 is a terminal, answered without making its stream; else its isTTY says. */
    isTerminal?: (fd: 0 | 1 | 2) => boolean;
  }) {
    this.#stdin = madeOnce(options.stdin);
    this.#stdout = madeOnce(options.stdout);
    this.#stderr = madeOnce(options.stderr);
    this.#isTerminal = options.isTerminal;
  }

  get stdin(): NodeJS.ReadStream {
    return this.#stdin();
  }

  get stdout(): NodeJS.WriteStream {
    return this.#stdout();
  }

  get stderr(): NodeJS.WriteStream {
    return this.#stderr();
  }

  get stdinIsTerminal(): boolean {
    return this.#isTerminal?.(0) ?? this.stdin.isTTY === true;
  }

  get stdoutIsTerminal(): boolean {
    return this.#isTerminal?.(1) ?? this.stdout.isTTY === true;
  }

  get stderrIsTerminal(): boolean {
    return this.#isTerminal?.(2) ?? this.stderr.isTTY === true;
  }

  canPrompt(): boolean {
    return this.stdinIsTerminal && this.stderrIsTerminal;
  }
}

function madeOnce<T extends NodeJS.ReadStream | NodeJS.WriteStream>(stream: T | (() => T)): () => T {
  let made: T | undefined;
  return () => {
    made ??= typeof stream === 'function' ? stream() : stream;
    return made;
  };
}

export function processStreams(): IOStreams {
  const streams = [() => process.stdin, () => process.stdout, () => process.stderr] as const;
  const terminal: boolean[] = [];
  return new IOStreams({
    stdin: streams[0],
    stdout: streams[1],
    stderr: streams[2],
    // A pipe or a file is answered without making its stream or loading node:tty.
    isTerminal: (fd) => {
      terminal[fd] ??= isCharacterDevice(fd) && streams[fd]().isTTY === true;
      return terminal[fd];
    },
  });
}

function isCharacterDevice(fd: number): boolean {
  try {
    return process.getBuiltinModule('node:fs').fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}
