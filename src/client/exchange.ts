import type { ResponseError, UnreachableError } from './errors.js';
import { backoff, parseRetryAfter, type RetryPolicy, sleep } from './retry-policy.js';
import { type Answer, SendError, type Transport } from './transport.js';

export type Exchange = Awaited<ReturnType<typeof exchange>>;

/** Every request goes out here, sent again where the policy allows; rejects only with UnreachableError. */
export async function exchange(
  transport: Transport,
  { method, url, body, pipelined = false }: { method: string; url: URL; body?: string; pipelined?: boolean },
  policy: RetryPolicy = { attempts: 1 },
  /** Attempt 1, already sent by the caller. */
  first?: { answer: Answer } | { error: unknown },
) {
  let mayHaveBeenApplied = false;
  const started = performance.now();
  /** undici's own writes of the request (a dropped pipeline), beyond the attempts. */
  let replays = 0;
  for (let attempt = 1; ; attempt++) {
    let waitMs: number | undefined;
    try {
      let answer: Answer;
      if (attempt === 1 && first !== undefined) {
        if ('error' in first) throw first.error;
        answer = first.answer;
      } else {
        // Pipelined as the first try: undici sends a request it may not pipeline only on an idle
        // connection, and the adds keep every one busy.
        answer = await transport.send(method, url, body, pipelined);
      }
      if (answer.sends > 1) {
        replays += answer.sends - 1;
        mayHaveBeenApplied = true;
      }
      const retryAfterMs =
        answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.retryAfter) : undefined;
      if (retryAfterMs === undefined || attempt >= policy.attempts || retryAfterMs > (policy.maxDelayMs ?? 10_000)) {
        return { answer, attempts: attempt + replays, elapsedMs: performance.now() - started, mayHaveBeenApplied };
      }
      waitMs = retryAfterMs;
    } catch (error) {
      if (!(error instanceof SendError)) throw error;
      if (error.sends > 1) replays += error.sends - 1;
      if (error.sent || error.sends > 1) mayHaveBeenApplied = true;
      // A DELETE sent again after it may have been applied would answer 404 for its own success.
      const again = error.retryable === 'not-applied' || (error.retryable === 'maybe-applied' && method !== 'DELETE');
      if (attempt >= policy.attempts || !again) {
        const tls = await transport.tlsPortInstead(error.reported);
        if (tls !== undefined) throw withAttemptsOn(tls, attempt + replays);
        error.reported.sentNoAnswer = mayHaveBeenApplied;
        throw withAttemptsOn(error.reported, attempt + replays);
      }
    }
    await sleep(waitMs ?? backoff(attempt, policy));
  }
}

export function withAttemptsOn<T extends ResponseError | UnreachableError>(error: T, attempts: number, ms = 0): T {
  error.attempts = attempts;
  if ('triedForMs' in error) error.triedForMs = ms;
  return error;
}
