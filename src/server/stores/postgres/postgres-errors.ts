/**
 * "The database cannot be reached just now" (a 503 with Retry-After), not a fault of ours (a 500). 40001 and
 * 40P01: the retries CockroachDB asks for. The messages: pg's own, code-less, for a connection that went away.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'EAI_AGAIN',
]);
const TRANSIENT_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended unexpectedly|read ECONNRESET/i;

export function isTransientPostgresError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SOCKET_CODES.has(code)) return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isTransientPostgresError);
  return TRANSIENT_MESSAGES.test(error.message);
}

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A driver message on one line, at most 200 characters. */
export function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, 200);
}
