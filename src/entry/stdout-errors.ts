/**
 * stdout that cannot take what is written: stop at once, and say so in the exit code (docs: Exit
 * codes). A reader that went away (`plants list --all | head -1`) is 141, as a shell reports
 * SIGPIPE, so that `set -o pipefail` sees it; anything else (a full disk) is one line and 74
 * (EX_IOERR), never a stack trace.
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
