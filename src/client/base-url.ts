import { InvalidInputError } from '../errors.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

/** A base URL with a user name or password in it; they are never repeated. */
export class CredentialsInUrlError extends InvalidInputError {
  constructor() {
    super('invalid base URL: credentials do not belong in the URL');
  }
}

/** http or https, no credentials, query or fragment; a trailing slash dropped (`{base_url}/plants`: one slash). */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidInputError(
      `invalid base URL ${JSON.stringify(text)}: expected something like ${DEFAULT_BASE_URL}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInputError(`invalid base URL ${JSON.stringify(text)}: the scheme must be http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CredentialsInUrlError();
  }
  if (url.search !== '' || url.hash !== '') {
    throw new InvalidInputError(`invalid base URL ${JSON.stringify(text)}: no query or fragment allowed`);
  }
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** The base URL as text, without the trailing slash `URL` adds to an empty path. */
export function formatBaseUrl(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** True for hosts whose traffic never leaves this machine: 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (host.startsWith('::ffff:')) return isLoopbackHost(host.slice('::ffff:'.length));
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export class ClearTextTokenError extends InvalidInputError {
  readonly origin: string;
  constructor(origin: string) {
    super(`refusing to send a bearer token in clear text to ${origin}: use an https:// base URL`);
    this.origin = origin;
  }
}

/** Refuses a bearer token in clear text to a host that is not this machine, unless `insecure`. */
export function assertTokenTransportSafe(url: URL, options: { insecure: boolean }): void {
  if (url.protocol === 'https:' || options.insecure || isLoopbackHost(url.hostname)) return;
  throw new ClearTextTokenError(url.origin);
}
