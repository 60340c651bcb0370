// What an error from the network stack says, read through its chain of causes.

/** The first Node or undici error code in the chain of causes. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY') return code;
  }
  return undefined;
}

/** The connection was closed (or reset) before a whole answer arrived. */
export function isClosedConnection(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED';
}
