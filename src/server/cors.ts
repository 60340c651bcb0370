import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServerOptionsError } from './errors.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type';
const EXPOSED_HEADERS = 'link, retry-after, www-authenticate';

/**
 * Never `*`: a store holds a team's data and its token (Prism's and json-server's allow-everyone default is what
 * we avoid). Another origin's preflight is a 405 like any other method. True when a preflight was answered.
 */
export function createCors(origins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const allowed = new Set(origins.map(checkOrigin));
  return (req, res) => {
    // Caches must keep answers to different origins apart, even the ones without CORS headers.
    res.setHeader('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return false;
    res.setHeader('access-control-allow-origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.writeHead(204, {
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
        'content-length': '0',
      });
      res.end();
      return true;
    }
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    return false;
  };
}

/** As browsers send it in `Origin:` (lower-case scheme and host, no default port). */
function checkOrigin(text: string): string {
  const bad = (why: string) =>
    new ServerOptionsError(
      `--cors ${JSON.stringify(text.slice(0, 100))}: ${why}; give an origin such as http://localhost:5173`,
    );
  if (text.includes('*')) throw bad('only named origins are allowed, not *');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('not an origin');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('the scheme must be http or https');
  if (
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    !/^[a-z]+:\/\/[^/]+\/?$/i.test(text)
  ) {
    throw bad('an origin is a scheme, a host and a port, with no path');
  }
  return url.origin;
}
