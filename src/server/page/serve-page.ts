import type { RequestObserver, RequestRecord } from '../observability/request-record.js';
import type { TestControls } from '../test-double/test-controls.js';
import { createEventStreams } from './event-stream.js';
import { PAGE_PREFIX } from './page-path.js';
import { createPageRoutes, type PageServerInfo } from './page-routes.js';
import { createRequestJournal, type RequestJournal, type RequestJournalOptions } from './request-journal.js';
import { createRequestRates } from './request-rates.js';

export interface ServePage {
  /** The routes to add to the app's table. */
  routes: ReturnType<typeof createPageRoutes>;
  /** The requests answered (GET /_serve/journal), for a test's code to read too. */
  journal: RequestJournal;
  /** Feeds the journal and the chart; the app calls it for every request answered. */
  observe: RequestObserver;
  /** Ends the open event streams (at a stop). */
  close(): void;
}

/** The page's own requests, and probes, are left out of its journal and chart (and logged as probes). */
export function isPageOrProbe(record: RequestRecord): boolean {
  return record.probe || record.path.startsWith(PAGE_PREFIX);
}

/** The page of plants serve (docs/serve-page.md): its journal, chart, event stream and routes, for one instance. */
export function createServePage(options: {
  tokens: readonly string[];
  info: PageServerInfo;
  controls: TestControls;
  journal?: Omit<RequestJournalOptions, 'skip'>;
}): ServePage {
  const journal = createRequestJournal({ ...options.journal, skip: isPageOrProbe });
  const rates = createRequestRates({ skip: isPageOrProbe });
  const streams = createEventStreams(journal, () => JSON.stringify(rates.window()));
  return {
    routes: createPageRoutes({ ...options, journal, rates, streams }),
    journal,
    observe(record) {
      journal.record(record);
      rates.record(record);
    },
    close: () => streams.closeAll(),
  };
}
