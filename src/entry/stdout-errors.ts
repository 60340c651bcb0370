/**
 * stdout that cannot take what is written: a reader gone (`| head -1`) is 141, as a shell reports
 * SIGPIPE, so that `set -o pipefail` sees it; anything else is one line and 74, never a stack.
 */
export function exitOnStdoutErrors(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(141);
    const words: Record<string, string> = {
      ENOSPC: 'no space left on device',
      EDQUOT: 'disk quota exceeded',
      EFBIG: 'file too large',
      EIO: 'input/output error',
      EBADF: 'it is not open for writing',
    };
    const reason = (error.code === undefined ? undefined : words[error.code]) ?? error.code ?? error.message;
    process.stderr.write(`plants: cannot write to stdout: ${reason}\n`);
    process.exit(74);
  });
}
