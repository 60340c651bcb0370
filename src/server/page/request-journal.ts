import type { RequestRecord } from '../observability/request-record.js';

/** Whichever is reached first drops the oldest entries. */
export const DEFAULT_JOURNAL_MAX_ENTRIES = 1000;
export const DEFAULT_JOURNAL_MAX_BYTES = 256 * 1024;

export interface RequestJournalOptions {
  maxEntries?: number;
  /** Each entry counted as its JSON, UTF-8. */
  maxBytes?: number;
  skip?: (record: RequestRecord) => boolean;
  now?: () => number;
}

export type RequestJournal = ReturnType<typeof createRequestJournal>;

/**
 * Capped in entries and bytes, so a long test run never grows it (WireMock's unbounded journal ran out of memory).
 * Entries are serialised once: the endpoint and the stream send them as they are, and the cap counts those bytes.
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
    record(record: RequestRecord): void {
      if (skip?.(record) === true) return;
      lastSeq += 1;
      // A JournalEntry (src/testing/store-types.ts) by hand: JSON.stringify and toISOString would cost more than the rest.
      const json =
        `{"seq":${lastSeq},"time":"${isoTime(now())}","method":${JSON.stringify(record.method)},` +
        `"path":${JSON.stringify(record.path)},"status":${record.status},` +
        `"durationMs":${Math.round(record.durationMs * 10) / 10},"requestId":${JSON.stringify(record.requestId)}` +
        `${record.fault === undefined ? '' : `,"fault":${JSON.stringify(record.fault)}`}}`;
      const size = Buffer.byteLength(json);
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
    since: (after = 0) => tail(after, count).texts,
    tail,
    stats: () => ({ entries: count, bytes, dropped, lastSeq }),
    /** A listener runs on every request: it should note that there is news and read the entries later (tail). */
    subscribe(listener: (seq: number, json: string) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** `toISOString()`, the part up to the second made once a second. */
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
