import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/server/observability/request-record.js';
import { createEventStreams, type EventStreams } from '../../../src/server/page/event-stream.js';
import { createRequestJournal, type RequestJournal } from '../../../src/server/page/request-journal.js';
import { createRequestRates, type RequestRates } from '../../../src/server/page/request-rates.js';
import { waitUntil } from '../http-client.js';

// The event stream over a real loopback connection, fed by a real journal.

const record = (i: number): RequestRecord => ({
  method: 'GET',
  path: `/plants/${i}`,
  target: `/plants/${i}`,
  route: '/plants/{id}',
  status: 200,
  durationMs: 1,
  bytes: 2,
  requestId: `r${i}`,
  probe: false,
});

describe('the event stream of the request journal', () => {
  let journal: RequestJournal;
  let rates: RequestRates;
  let streams: EventStreams;
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    journal = createRequestJournal();
    rates = createRequestRates();
    streams = createEventStreams(journal, () => JSON.stringify(rates.window()));
    server = http.createServer((req, res) => streams.open(req, res, Number(req.url?.slice(1) || 0)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    streams.closeAll();
    await new Promise((resolve) => server.close(resolve));
  });

  async function read(after: number, until: (text: string) => boolean): Promise<string> {
    const stream = await request(`${url}/${after}`);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    let text = '';
    stream.body.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    await waitUntil(() => until(text), 10_000, 'the events');
    stream.body.destroy();
    return text;
  }

  it('sends what the journal holds after the seq asked, then new entries', async () => {
    for (let i = 1; i <= 3; i += 1) journal.record(record(i));
    const reading = read(1, (t) => t.includes('"requestId":"r4"'));
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    journal.record(record(4));
    const text = await reading;
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual([2, 3, 4]);
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
  });

  /** Requests answered, as the page's observer records them: into the journal and the chart's rates. */
  function answer(from: number, to: number): void {
    for (let i = from; i <= to; i += 1) {
      journal.record(record(i));
      rates.record(record(i));
    }
  }
  /** The requests counted by each `event: rates` in the stream. */
  const total = (window: { buckets: number[][] }) => window.buckets.reduce((sum, b) => sum + (b[1] as number), 0);
  const ratesTotals = (text: string) =>
    [...text.matchAll(/^event: rates\ndata: (.*)$/gm)].map((match) =>
      total(JSON.parse(match[1] as string) as { buckets: number[][] }),
    );

  it('takes more than 100 requests before a flush for load: sends the newest 10, how many it skipped, and the rates', async () => {
    const before = journal.stats().lastSeq;
    const earlier = total(rates.window());
    const reading = read(before, (t) => t.includes('event: rates'));
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    // One burst, all before the next flush.
    answer(before + 1, before + 250);
    const text = await reading;
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
    expect(text).toContain('event: gap\ndata: {"missed":240}\n\n');
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => before + 241 + i));
    expect(ratesTotals(text)).toEqual([earlier + 250]);
  });

  it('under load flushes 4 s apart; when it ends, sends the newest 100 at once, then every request again', async () => {
    const before = journal.stats().lastSeq;
    const earlier = total(rates.window());
    const stream = await request(`${url}/${before}`);
    let text = '';
    stream.body.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    answer(before + 1, before + 250);
    await waitUntil(() => text.includes(`"requestId":"r${before + 250}"`), 10_000, 'the first burst');
    const second = performance.now();
    // 150 in the 4 s after: no longer load, so that flush sends what it can (100) and says so.
    answer(before + 251, before + 400);
    await waitUntil(() => text.includes(`"requestId":"r${before + 400}"`), 10_000, 'the second burst');
    expect(performance.now() - second).toBeGreaterThanOrEqual(3900);
    const third = performance.now();
    answer(before + 401, before + 401);
    await waitUntil(() => text.includes(`"requestId":"r${before + 401}"`), 10_000, 'the request after');
    expect(performance.now() - third).toBeLessThan(1500);
    stream.body.destroy();
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
    const missed = [...text.matchAll(/^data: \{"missed":(\d+)\}$/gm)].map((match) => Number(match[1]));
    expect(missed).toEqual([240, 50]);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual([
      ...Array.from({ length: 10 }, (_, i) => before + 241 + i),
      ...Array.from({ length: 100 }, (_, i) => before + 301 + i),
      before + 401,
    ]);
    // The rates go with each gap only: the chart's figures under load, counting every request.
    expect(ratesTotals(text)).toEqual([earlier + 250, earlier + 400]);
  });

  it('ends every stream when asked (a stop does not wait for open tabs)', async () => {
    const stream = await request(`${url}/0`);
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    const ended = new Promise<void>((resolve) => stream.body.on('end', resolve).resume());
    streams.closeAll();
    await ended;
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
  });
});
