import { type ChildProcess, spawn } from 'node:child_process';

/** The program that hands a URL to the user's browser, by platform: `open`, `cmd /c start`, else xdg-open. */
export function browserOpener(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // start's first quoted argument is a window title; the URL is ours (no & or ^ to escape).
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/**
 * Opens `url` in the user's browser (serve --open), without waiting for it and never failing:
 * a machine without a browser or an opener (a server, a container) gets `onFailure` with a
 * sentence to print, and serve goes on.
 */
export function openInBrowser(
  url: string,
  onFailure: (why: string) => void,
  options: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv } = {},
): void {
  const [command, args] = browserOpener(options.platform ?? process.platform, url);
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: 'ignore', env: options.env ?? process.env });
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
