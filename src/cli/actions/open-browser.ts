import { type ChildProcess, spawn } from 'node:child_process';

/** Opens `url` in the user's browser without waiting, never failing: `onFailure` gets a sentence instead. */
export function openInBrowser(url: string, onFailure: (why: string) => void): void {
  // start's first quoted argument is a window title; the URL is ours (no & or ^ to escape).
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: 'ignore' });
  } catch (error) {
    onFailure(`could not open a browser (${command}: ${(error as Error).message}); open ${url} yourself`);
    return;
  }
  child.once('error', (error: NodeJS.ErrnoException) => {
    const why = error.code === 'ENOENT' ? `${command} is not installed` : error.message;
    onFailure(`could not open a browser (${why}); open ${url} yourself`);
  });
  child.once('exit', (code) => {
    if (code !== 0 && code !== null)
      onFailure(`could not open a browser (${command} exited ${code}); open ${url} yourself`);
  });
  child.unref();
}
