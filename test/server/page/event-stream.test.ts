import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/server/observability/request-record.js';
import { createEventStreams, type EventStreams } from '../../../src/server/page/event-stream.js';
import { createRequestJournal, type RequestJournal } from '../../../src/server/page/request-journal.js';
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
  let streams: EventStreams;
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    journal = createRequestJournal();
    streams = createEventStreams(journal);
    server = http.createServer((req, res) => streams.open(req, res, Number(req.url?.slice(1) || 0), {}));
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

  it('sends at most the newest 100 of a burst, and says how many it skipped', async () => {
    const before = journal.stats().lastSeq;
    const reading = read(before, (t) => t.includes(`"requestId":"r${before + 250}"`));
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    // One burst, all before the next flush.
    for (let i = before + 1; i <= before + 250; i += 1) journal.record(record(i));
    const text = await reading;
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
    expect(text).toContain('event: gap\ndata: {"missed":150}\n\n');
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => before + 151 + i));
  });

  it('after a flush that skipped some, flushes a second apart, each the newest 100 and a count of the rest', async () => {
    const before = journal.stats().lastSeq;
    const stream = await request(`${url}/${before}`);
    let text = '';
    stream.body.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    await waitUntil(() => streams.size === 1, 5000, 'the stream to open');
    for (let i = before + 1; i <= before + 250; i += 1) journal.record(record(i));
    await waitUntil(() => text.includes(`"requestId":"r${before + 250}"`), 10_000, 'the first burst');
    const second = performance.now();
    for (let i = before + 251; i <= before + 400; i += 1) journal.record(record(i));
    await waitUntil(() => text.includes(`"requestId":"r${before + 400}"`), 10_000, 'the second burst');
    expect(performance.now() - second).toBeGreaterThanOrEqual(900);
    stream.body.destroy();
    await waitUntil(() => streams.size === 0, 5000, 'the stream to close');
    const missed = [...text.matchAll(/^data: \{"missed":(\d+)\}$/gm)].map((match) => Number(match[1]));
    expect(missed).toEqual([150, 50]);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual([
      ...Array.from({ length: 100 }, (_, i) => before + 151 + i),
      ...Array.from({ length: 100 }, (_, i) => before + 301 + i),
    ]);
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
