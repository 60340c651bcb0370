import { errorCode } from './errors.js';

/**
 * A failed POST is sent again only where it cannot have been applied (refused; 429 or 503 with
 * Retry-After), or where the store's 409 for a duplicate id makes a repeat harmless (dropped, or
 * timed out): a 409 after such a retry is reported as possibly the first attempt's doing.
 */
export interface RetryPolicy {
  /** Sends at most this many times in all. Default 1: no retry. */
  attempts: number;
  /** Back-off before the second attempt, doubled each time (with jitter). Default 200. */
  baseDelayMs?: number;
  /** Longest wait, Retry-After included: a longer Retry-After is not waited for. Default 10 000. */
  maxDelayMs?: number;
}

export type Retryable = 'not-applied' | 'maybe-applied' | false;

/** Refused: nothing reached the server. Dropped before any answer: it may have been applied. */
export function retryableFailure(error: unknown): Retryable {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'not-applied';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'maybe-applied';
  return false;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month (`Sun, 06 Nov 1994 08:49:37 GMT`); bare numbers are not dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoff(attempt: number, policy: RetryPolicy): number {
  const base = (policy.baseDelayMs ?? 200) * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs ?? 10_000, base / 2 + Math.random() * (base / 2));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
