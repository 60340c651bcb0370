import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerCollector } from '../../src/client/transport.js';

// The collector over undici's controller API, against a real server on loopback: its answer
// settles once, and undici is never left holding a request the client gave up on.

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server that holds the first request until `release()` (once it has come), and answers every other at once. */
async function holdingServer() {
  const seen: string[] = [];
  let hold: (answer: () => void) => void = () => undefined;
  const held = new Promise<() => void>((resolve) => {
    hold = resolve;
  });
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer to ${req.url}`);
    if (seen.length === 1) hold(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    release: async () => (await held)(),
  };
}

describe('AnswerCollector', () => {
  it('collects a whole answer: status, content-type and body', async () => {
    const server = await holdingServer();
    const client = new Client(server.url);
    closers.push(() => client.close());
    const first = new AnswerCollector(1024, 10_000);
    client.dispatch({ path: '/one', method: 'GET' }, first);
    await server.release();
    const answer = await first.answer;
    expect([answer.status, answer.contentType, answer.text, answer.sends]).toEqual([
      200,
      'text/plain',
      'answer to /one',
      1,
    ]);
  });

  it('gives up on a request undici has not written: rejected at once, aborted when undici starts it', async () => {
    const server = await holdingServer();
    // One connection, one request at a time: the second waits in undici's queue behind the first.
    const client = new Client(server.url, { pipelining: 1 });
    const first = new AnswerCollector(1024, 10_000);
    const second = new AnswerCollector(1024, 10_000);
    client.dispatch({ path: '/first', method: 'GET' }, first);
    client.dispatch({ path: '/second', method: 'GET' }, second);
    second.abort(new Error('given up'));
    await expect(second.answer).rejects.toThrow('given up');
    expect(second.sends).toBe(0);
    await server.release();
    expect((await first.answer).text).toBe('answer to /first');
    // Undici no longer holds the second: it was never written, and the client closes.
    await client.close();
    expect(server.seen).toEqual(['GET /first']);
  });

  it('stops reading an answer longer than its limit, keeping what came', async () => {
    const server = createServer((_req, res) => res.end('x'.repeat(100_000)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    closers.push(() => client.destroy());
    const collector = new AnswerCollector(10, 10_000);
    client.dispatch({ path: '/', method: 'GET' }, collector);
    const answer = await collector.answer;
    expect(answer.text.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(answer.text.slice(0, -1))).toBeLessThanOrEqual(10);
  });
});
