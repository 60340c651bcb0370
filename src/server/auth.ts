import { hash, timingSafeEqual } from 'node:crypto';
import { isBearerToken } from '../schema/token.js';
import { UnauthorizedError } from './errors.js';

/** The scheme name is case-insensitive (RFC 7235 §2.1). */
const bearerHeader = /^bearer +(\S+) *$/i;
/** A token was presented, however malformed. */
const bearerWithCredentials = /^bearer +\S/i;

function digest(text: string): Buffer {
  // The one-shot crypto.hash: half the cost of createHash().update().digest() per request.
  return hash('sha256', text, 'buffer');
}

/**
 * Hashes, so that timingSafeEqual compares equal lengths, and never exits early, so that the time does not tell
 * which token, if any, matched. A message never repeats the token.
 */
export function createBearerAuth(tokens: readonly string[]): (authorization: string | undefined) => void {
  const accepted = tokens.map(digest);
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '') {
      throw new UnauthorizedError('missing bearer token: send Authorization: Bearer <token>', { invalidToken: false });
    }
    const match = bearerHeader.exec(authorization.trim());
    if (match === null) {
      // Another scheme (Basic, …) or a bare `Bearer` presents no token: the bare challenge, per RFC 6750 §3.1.
      const presented = bearerWithCredentials.test(authorization.trim());
      throw new UnauthorizedError('malformed Authorization header: expected Bearer <token>', {
        invalidToken: presented,
      });
    }
    const token = match[1] ?? '';
    if (!isBearerToken(token)) {
      throw new UnauthorizedError('malformed bearer token', { invalidToken: true });
    }
    const presented = digest(token);
    let matched = false;
    for (const candidate of accepted) matched = timingSafeEqual(presented, candidate) || matched;
    if (!matched) throw new UnauthorizedError('invalid bearer token', { invalidToken: true });
  };
}
