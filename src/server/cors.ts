import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServerOptionsError } from './errors.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type';
/** What a browser script may read of an answer besides the simple headers: paging, back-off, auth challenge. */
const EXPOSED_HEADERS = 'link, retry-after, www-authenticate';

/**
 * CORS for the origins named, and only those (`serve --cors ORIGIN`, repeatable): a browser
 * front-end in development may then call the store. A request from any other origin gets no
 * CORS header at all, so the browser keeps its answer from the script; its preflight (OPTIONS)
 * is a 405 like any other method the route does not take. Never `*`: a store holds a team's
 * data and its token, and Prism's or json-server's allow-everyone default is what we avoid.
 *
 * The handler answers a preflight (true: the request is done) or adds the CORS headers to the
 * answer to come (false). Throws ServerOptionsError (exit 2) for anything that is not an origin:
 * `scheme://host[:port]` with http or https, no path, no `*`.
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

/** An origin as browsers send it in `Origin:` (lower-case scheme and host, no default port), or exit 2. */
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
