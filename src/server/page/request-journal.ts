import type { RequestRecord } from '../observability/request-record.js';

/** Default bounds of the journal: whichever is reached first drops the oldest entries. */
export const DEFAULT_JOURNAL_MAX_ENTRIES = 1000;
export const DEFAULT_JOURNAL_MAX_BYTES = 256 * 1024;

export interface RequestJournalOptions {
  /** At most this many entries are kept. Default DEFAULT_JOURNAL_MAX_ENTRIES. */
  maxEntries?: number;
  /** At most this many bytes of entries (each counted as its JSON, UTF-8) are kept. Default DEFAULT_JOURNAL_MAX_BYTES. */
  maxBytes?: number;
  /** Requests left out (the page's own). Default: none. */
  skip?: (record: RequestRecord) => boolean;
  /** The clock, for tests. Default Date.now. */
  now?: () => number;
}

export type RequestJournal = ReturnType<typeof createRequestJournal>;

/**
 * The bounded request journal of plants serve: a ring of the last requests, capped both in
 * entries and in bytes, so a long test run never grows it (WireMock's unbounded journal ran out
 * of memory in long tests). Entries are kept as JSON text, serialised once: the JSON endpoint
 * and the event stream send them as they are, and their bytes are exactly what the cap counts.
 */
export function createRequestJournal(options: RequestJournalOptions = {}) {
  const maxEntries = options.maxEntries ?? DEFAULT_JOURNAL_MAX_ENTRIES;
  const maxBytes = options.maxBytes ?? DEFAULT_JOURNAL_MAX_BYTES;
  if (!(Number.isInteger(maxEntries) && maxEntries > 0) || !(Number.isInteger(maxBytes) && maxBytes > 0)) {
    throw new RangeError('the journal needs maxEntries and maxBytes above 0');
  }
  const now = options.now ?? Date.now;
  const isoTime = createIsoClock();
  const { skip } = options;
  // A ring: slots[(head + i) % maxEntries] for i < count, oldest first.
  const texts: string[] = new Array(maxEntries);
  const seqs = new Float64Array(maxEntries);
  const sizes = new Float64Array(maxEntries);
  let head = 0;
  let count = 0;
  let bytes = 0;
  let dropped = 0;
  let lastSeq = 0;
  const listeners = new Set<(seq: number, json: string) => void>();

  const dropOldest = () => {
    bytes -= sizes[head] as number;
    texts[head] = '';
    head = (head + 1) % maxEntries;
    count -= 1;
    dropped += 1;
  };

  /**
   * At most `max` of the newest entries kept with a seq above `after`, oldest first, each as its
   * JSON text, and how many entries after `after` are left out (older than those, or no longer kept).
   */
  const tail = (after: number, max: number) => {
    const newest: string[] = [];
    for (let i = count - 1; i >= 0 && newest.length < max; i -= 1) {
      const slot = (head + i) % maxEntries;
      if ((seqs[slot] as number) <= after) break;
      newest.push(texts[slot] as string);
    }
    newest.reverse();
    return { texts: newest, skipped: Math.max(0, lastSeq - after - newest.length) };
  };

  return {
    maxEntries,
    maxBytes,
    /** The observer that feeds it: the app tells it of every request once answered. */
    record(record: RequestRecord): void {
      if (skip?.(record) === true) return;
      lastSeq += 1;
      // A JournalEntry (src/testing/store-types.ts), written out by hand: this runs for every request, where JSON.stringify
      // of an object and a Date's toISOString would cost more than the rest of the journal.
      const json =
        `{"seq":${lastSeq},"time":"${isoTime(now())}","method":${JSON.stringify(record.method)},` +
        `"path":${JSON.stringify(record.path)},"status":${record.status},` +
        `"durationMs":${Math.round(record.durationMs * 10) / 10},"requestId":${JSON.stringify(record.requestId)}` +
        `${record.fault === undefined ? '' : `,"fault":${JSON.stringify(record.fault)}`}}`;
      const size = Buffer.byteLength(json);
      // An entry alone over the byte cap is not kept (paths are cut at 200 characters and request
      // ids at 128, so only a tiny cap meets this); it still goes to the listeners.
      if (size <= maxBytes) {
        while (count > 0 && (count === maxEntries || bytes + size > maxBytes)) dropOldest();
        const slot = (head + count) % maxEntries;
        texts[slot] = json;
        seqs[slot] = lastSeq;
        sizes[slot] = size;
        count += 1;
        bytes += size;
      } else {
        dropped += 1;
      }
      for (const listener of listeners) listener(lastSeq, json);
    },
    /** The entries kept with a seq above `after`, oldest first, each as its JSON text. */
    // Seqs rise from the oldest entry kept to the newest: all of those after `after` are its tail.
    since: (after = 0) => tail(after, count).texts,
    tail,
    /** How many entries are kept, their bytes, and how many were dropped to stay in bounds. */
    stats: () => ({ entries: count, bytes, dropped, lastSeq }),
    /**
     * Called with each new entry's seq and JSON text; returns the unsubscribe. A listener runs on
     * every request: it should note that there is news and read the entries later (tail).
     */
    subscribe(listener: (seq: number, json: string) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** `new Date(ms).toISOString()`, with the part up to the second made once a second. */
function createIsoClock(): (ms: number) => string {
  let second = Number.NaN;
  let prefix = '';
  return (ms) => {
    const at = Math.floor(ms / 1000);
    if (at !== second) {
      second = at;
      prefix = new Date(at * 1000).toISOString().slice(0, 20);
    }
    return `${prefix}${String(ms - at * 1000).padStart(3, '0')}Z`;
  };
}
