import type { IncomingMessage } from 'node:http';
import { createBearerAuth } from '../auth.js';
import { HttpError } from '../errors.js';
import { checkContentType, readBody } from '../http/request.js';
import { sendJson } from '../http/response.js';
import type { RequestRecord } from '../observability/request-record.js';
import type { RouteHandler } from '../routes/route-context.js';
import type { TestControls } from '../test-double/test-controls.js';
import { createEventStreams, type EventStreams } from './event-stream.js';
import { PAGE_ASSETS, type PageAssetName, readPageAsset } from './page-assets.js';
import { checkSameOrigin, setPageHeaders } from './page-headers.js';
import { PAGE_PREFIX } from './page-path.js';
import { createRequestJournal, type RequestJournal, type RequestJournalOptions } from './request-journal.js';
import { createRequestRates, type RequestRates } from './request-rates.js';

export interface PageServerInfo {
  instance: string;
  store: 'sqlite' | 'memory' | 'postgres';
}

interface PageOptions {
  tokens: readonly string[];
  info: PageServerInfo;
  controls: TestControls;
  journal?: Omit<RequestJournalOptions, 'skip'>;
}

/** Left out of the page's journal and chart (and logged as probes). */
export function isPageOrProbe(record: RequestRecord): boolean {
  return record.probe || record.path.startsWith(PAGE_PREFIX);
}

/** docs/serve-page.md. */
export function createServePage(options: PageOptions) {
  const journal = createRequestJournal({ ...options.journal, skip: isPageOrProbe });
  const rates = createRequestRates({ skip: isPageOrProbe });
  const streams = createEventStreams(journal, () => JSON.stringify(rates.window()));
  return {
    routes: createPageRoutes(options, journal, rates, streams),
    journal,
    observe(record: RequestRecord): void {
      journal.record(record);
      rates.record(record);
    },
    close: () => streams.closeAll(),
  };
}

/** Bodies are a few hundred bytes. */
const MAX_CONTROLS_BYTES = 16 * 1024;

/** Its files need no token: they hold no data. */
function createPageRoutes(
  { tokens, info, controls }: PageOptions,
  journal: RequestJournal,
  rates: RequestRates,
  streams: EventStreams,
): Record<string, Record<string, RouteHandler>> {
  const authorize = createBearerAuth(tokens);
  // Every data endpoint: the page's headers first (errors carry them too), then origin, then token.
  const guarded =
    (handler: RouteHandler): RouteHandler =>
    (req, res, fail) => {
      setPageHeaders(res);
      checkSameOrigin(req);
      authorize(req.headers.authorization);
      handler(req, res, fail);
    };
  const asset =
    (name: PageAssetName): RouteHandler =>
    (req, res, fail) => {
      setPageHeaders(res);
      readPageAsset(name).then((asset) => {
        const gzipped = acceptsGzip(req.headers['accept-encoding']);
        const bytes = gzipped ? asset.gzipped : asset.raw;
        res.writeHead(200, {
          'content-type': PAGE_ASSETS[name],
          'content-length': bytes.length,
          vary: 'accept-encoding',
          ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
        });
        res.end(req.method === 'HEAD' ? undefined : bytes);
      }, fail);
    };
  const journalRoute = guarded((req, res) => {
    const after = afterOf(req);
    const stats = journal.stats();
    const head = JSON.stringify({
      instance: info.instance,
      store: info.store,
      maxEntries: journal.maxEntries,
      maxBytes: journal.maxBytes,
      ...stats,
    });
    sendJson(res, 200, `${head.slice(0, -1)},"requests":[${journal.since(after).join(',')}]}`);
  });
  const eventsRoute = guarded((req, res) => streams.open(req, res, afterOf(req)));
  const ratesRoute = guarded((_req, res) => sendJson(res, 200, JSON.stringify(rates.window())));
  const readControls = guarded((_req, res) => sendJson(res, 200, JSON.stringify(controls.state())));
  const changeControls = guarded((req, res, fail) => {
    // Refused before the body is read, as POST /reset is without --allow-reset.
    controls.checkEditable();
    checkContentType(req.headers['content-type']);
    readBody(req, res, MAX_CONTROLS_BYTES, (error, body) => {
      if (error !== undefined) return fail(error);
      try {
        sendJson(res, 200, JSON.stringify(controls.update(parseJson(body))));
      } catch (updateError) {
        fail(updateError);
      }
    });
  });
  const page = asset('index.html');
  // `/_serve` as typed: the page's relative links need the slash.
  const toPage: RouteHandler = (_req, res) => {
    setPageHeaders(res);
    res.writeHead(308, { location: PAGE_PREFIX, 'content-length': 0 });
    res.end();
  };
  return {
    [PAGE_PREFIX.slice(0, -1)]: { GET: toPage, HEAD: toPage },
    [PAGE_PREFIX]: { GET: page, HEAD: page },
    [`${PAGE_PREFIX}page.js`]: { GET: asset('page.js'), HEAD: asset('page.js') },
    [`${PAGE_PREFIX}page.css`]: { GET: asset('page.css'), HEAD: asset('page.css') },
    // Its own icon: without one a browser asks for /favicon.ico, which the store refuses (a console error).
    [`${PAGE_PREFIX}icon.svg`]: { GET: asset('icon.svg'), HEAD: asset('icon.svg') },
    [`${PAGE_PREFIX}journal`]: { GET: journalRoute },
    [`${PAGE_PREFIX}events`]: { GET: eventsRoute },
    [`${PAGE_PREFIX}rates`]: { GET: ratesRoute },
    [`${PAGE_PREFIX}controls`]: { GET: readControls, PUT: changeControls },
  };
}

function afterOf(req: IncomingMessage): number {
  const url = req.url ?? '';
  const start = url.indexOf('?');
  if (start === -1) return 0;
  const params = new URLSearchParams(url.slice(start + 1));
  let after = 0;
  for (const [key, value] of params) {
    if (key !== 'after')
      throw new HttpError(400, `unknown query parameter ${JSON.stringify(key.slice(0, 40))}; only after is taken`);
    if (!/^\d{1,15}$/.test(value)) {
      throw new HttpError(
        400,
        `after must be a whole number from 0, the seq of a journal entry (got ${JSON.stringify(value.slice(0, 40))})`,
      );
    }
    after = Number(value);
  }
  return after;
}

/** RFC 9110 §12.5.3. */
function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    return coding === 'gzip' && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
  });
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new HttpError(400, 'request body is not valid JSON', { cause: error });
  }
}
