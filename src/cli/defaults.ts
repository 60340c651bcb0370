/** Defaults of the flags of commands that send requests, shared by the oclif flags and the fast path. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_RETRIES = 3;
export const MAX_RETRIES = 10;
export const DEFAULT_CONCURRENCY = 64;
export const MAX_CONCURRENCY = 256;

/** `--timeout` as seconds above 0 and at most a day; undefined when it is not that. */
export function parseTimeoutSeconds(text: string): number | undefined {
  const seconds = Number(text);
  return text.trim() !== '' && Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400 ? seconds : undefined;
}
