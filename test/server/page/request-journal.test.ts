import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/server/observability/request-record.js';
import { createRequestJournal } from '../../../src/server/page/request-journal.js';
import { createRequestRates, RATE_WINDOW_SECONDS } from '../../../src/server/page/request-rates.js';
import type { JournalEntry } from '../../../src/testing/index.js';

function record(path: string, extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    method: 'POST',
    path,
    target: path,
    route: '/plants',
    status: 200,
    durationMs: 1.234,
    bytes: 10,
    requestId: 'req-1',
    probe: false,
    ...extra,
  };
}

const parse = (texts: string[]): JournalEntry[] => texts.map((text) => JSON.parse(text) as JournalEntry);

describe('the request journal', () => {
  it('keeps every field of an entry, fault included, as JSON', () => {
    const journal = createRequestJournal({ now: () => Date.UTC(2026, 10, 26, 10, 0, 0, 5) });
    journal.record(record('/plants', { fault: '503', status: 503, requestId: 'abc' }));
    expect(parse(journal.since())).toEqual([
      {
        seq: 1,
        time: '2026-11-26T10:00:00.005Z',
        method: 'POST',
        path: '/plants',
        status: 503,
        durationMs: 1.2,
        requestId: 'abc',
        fault: '503',
      },
    ]);
  });

  it('writes each entry as JSON.stringify would, its time as toISOString would', () => {
    let now = Date.UTC(2026, 10, 26, 23, 59, 59, 999);
    const journal = createRequestJournal({ now: () => now });
    const odd = record('/plants/"quoted"\\back\u0001€', { requestId: 'a/b+c=d', durationMs: 0.04, status: 499 });
    journal.record(odd);
    now += 1;
    journal.record(record('/plants', { durationMs: 12345.678, fault: 'truncate' }));
    now += 1001;
    journal.record(record('/plants'));
    const texts = journal.since();
    const expected = [
      { seq: 1, time: '2026-11-26T23:59:59.999Z', path: odd.path, status: 499, durationMs: 0, requestId: 'a/b+c=d' },
      {
        seq: 2,
        time: '2026-11-27T00:00:00.000Z',
        path: '/plants',
        status: 200,
        durationMs: 12345.7,
        fault: 'truncate',
      },
      { seq: 3, time: '2026-11-27T00:00:01.001Z', path: '/plants', status: 200, durationMs: 1.2 },
    ];
    texts.forEach((text, index) => {
      const entry = JSON.parse(text) as JournalEntry;
      const want = { method: 'POST', requestId: 'req-1', ...expected[index] };
      expect(entry).toEqual(want);
      expect(text).toBe(JSON.stringify(entry));
    });
  });

  it('overflowed by entries, keeps the newest maxEntries and counts the dropped', () => {
    const journal = createRequestJournal({ maxEntries: 5, maxBytes: 1024 * 1024 });
    for (let i = 1; i <= 23; i += 1) journal.record(record(`/plants/${i}`));
    const kept = parse(journal.since());
    expect(kept.map((entry) => entry.seq)).toEqual([19, 20, 21, 22, 23]);
    expect(kept.map((entry) => entry.path)).toEqual([
      '/plants/19',
      '/plants/20',
      '/plants/21',
      '/plants/22',
      '/plants/23',
    ]);
    expect(journal.stats()).toMatchObject({ entries: 5, dropped: 18, lastSeq: 23 });
    expect(parse(journal.since(21)).map((entry) => entry.seq)).toEqual([22, 23]);
  });

  it('gives the newest few after a seq, and counts those it leaves out, dropped ones too', () => {
    const journal = createRequestJournal({ maxEntries: 5, maxBytes: 1024 * 1024 });
    expect(journal.tail(0, 3)).toEqual({ texts: [], skipped: 0 });
    for (let i = 1; i <= 23; i += 1) journal.record(record(`/plants/${i}`));
    const seqs = (after: number, max: number) => {
      const { texts, skipped } = journal.tail(after, max);
      return { seqs: parse(texts).map((entry) => entry.seq), skipped };
    };
    expect(seqs(20, 3)).toEqual({ seqs: [21, 22, 23], skipped: 0 });
    expect(seqs(20, 2)).toEqual({ seqs: [22, 23], skipped: 1 });
    // 19 to 23 are kept; 11 to 18 were dropped by the cap, and count as left out.
    expect(seqs(10, 100)).toEqual({ seqs: [19, 20, 21, 22, 23], skipped: 8 });
    expect(seqs(23, 100)).toEqual({ seqs: [], skipped: 0 });
    expect(seqs(99, 100)).toEqual({ seqs: [], skipped: 0 });
  });

  it('overflowed by bytes, never holds more than maxBytes of entries', () => {
    const maxBytes = 2000;
    const journal = createRequestJournal({ maxEntries: 1000, maxBytes });
    for (let i = 1; i <= 500; i += 1) {
      journal.record(record(`/plants/${'x'.repeat(i % 150)}`));
      const { bytes, entries } = journal.stats();
      const kept = journal.since();
      expect(kept).toHaveLength(entries);
      expect(kept.reduce((sum, text) => sum + Buffer.byteLength(text), 0)).toBe(bytes);
      expect(bytes).toBeLessThanOrEqual(maxBytes);
    }
    const { entries, dropped } = journal.stats();
    // Far fewer than the entry cap: the bytes bound first.
    expect(entries).toBeGreaterThan(3);
    expect(entries).toBeLessThan(40);
    expect(entries + dropped).toBe(500);
    // The newest is always there.
    expect(parse(journal.since()).at(-1)?.seq).toBe(500);
  });

  it('counts bytes as UTF-8', () => {
    const journal = createRequestJournal({ maxEntries: 10, maxBytes: 10_000 });
    journal.record(record('/plants/€€€'));
    const [text] = journal.since();
    expect(journal.stats().bytes).toBe(Buffer.byteLength(text as string));
    expect(journal.stats().bytes).toBe((text as string).length + 6);
  });

  it('leaves out what skip says, and tells subscribers of each new entry until they unsubscribe', () => {
    const journal = createRequestJournal({ skip: (r) => r.probe });
    const seen: number[] = [];
    const unsubscribe = journal.subscribe((seq) => seen.push(seq));
    journal.record(record('/healthz', { probe: true }));
    journal.record(record('/plants'));
    unsubscribe();
    journal.record(record('/plants'));
    expect(seen).toEqual([1]);
    expect(journal.stats()).toMatchObject({ entries: 2, lastSeq: 2 });
  });

  it('refuses bounds that are not whole numbers above 0', () => {
    expect(() => createRequestJournal({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => createRequestJournal({ maxBytes: 1.5 })).toThrow(RangeError);
  });
});

describe('the request rates', () => {
  it('counts requests per second with their mean and max latency, over a fixed window', () => {
    let now = 1_000_000_000;
    const rates = createRequestRates({ now: () => now });
    rates.record(record('/plants', { durationMs: 2 }));
    rates.record(record('/plants', { durationMs: 4 }));
    now += 1000;
    rates.record(record('/plants', { durationMs: 10 }));
    expect(rates.window().buckets).toEqual([
      [1_000_000, 2, 3, 4],
      [1_000_001, 1, 10, 10],
    ]);
    // Past the window, old seconds are gone, and a reused slot starts from nothing.
    now += RATE_WINDOW_SECONDS * 1000;
    rates.record(record('/plants', { durationMs: 1 }));
    expect(rates.window().buckets).toEqual([[1_000_001 + RATE_WINDOW_SECONDS, 1, 1, 1]]);
  });
});
