import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { HttpError } from '../errors.js';

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Every answer of the page's routes carries them, errors included. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Takes off what --cors may have added: the page's routes are same-origin only. */
export function setPageHeaders(res: ServerResponse): void {
  res.removeHeader('access-control-allow-origin');
  res.removeHeader('access-control-expose-headers');
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
}

/** Clients that are not browsers send neither header and are judged by their token alone. */
export function checkSameOrigin(req: IncomingMessage): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, `cross-origin requests to the page's endpoints are refused (Sec-Fetch-Site: ${site})`);
  }
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const scheme = (req.socket as TLSSocket).encrypted === true ? 'https' : 'http';
  if (origin !== `${scheme}://${req.headers.host ?? ''}`) {
    throw new HttpError(403, "cross-origin requests to the page's endpoints are refused");
  }
}
