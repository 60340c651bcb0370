import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDispatcher, createAgent } from '../../src/client/undici-agent.js';
import { type FixtureServer, reply, startFixtureServer } from '../helpers/fixture-server.js';

// The client's choice of dispatcher: direct to this machine, through the proxies elsewhere.

let store: FixtureServer;
let proxy: Server;
let proxyUrl: string;
/** What the proxy was asked for: a tunnel's host:port, or a forwarded request's URL. */
const asked: string[] = [];
beforeAll(async () => {
  store = await startFixtureServer(reply(200, '[]'));
  proxy = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, client: Socket) => {
    asked.push(req.url ?? '');
    client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await store.close();
  await new Promise((resolve) => proxy.close(resolve));
});

describe('createAgent', () => {
  const proxies = () => ({ connections: 1, httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '' });

  it('reaches a store on this machine directly, whatever HTTP_PROXY says (a token in clear text stays here)', async () => {
    const agent = createAgent(new URL(store.url), proxies());
    try {
      const answer = await request(`${store.url}/plants`, { dispatcher: agent });
      expect(answer.statusCode).toBe(200);
      await answer.body.text();
    } finally {
      await agent.close();
    }
    expect(asked).toEqual([]);
    expect(store.requests).toHaveLength(1);
  });

  it('sends to a store on another machine through the proxy', async () => {
    const agent = createAgent(new URL('http://plants.invalid'), proxies());
    try {
      await request('http://plants.invalid/plants', { dispatcher: agent })
        .then((answer) => answer.body.text())
        .catch(() => undefined);
    } finally {
      await agent.close();
    }
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('plants.invalid');
  });
});

describe('closeDispatcher', () => {
  const direct = () => createAgent(new URL(store.url), { connections: 1, httpProxy: '', httpsProxy: '', noProxy: '' });

  it('closes an idle agent at once: its connection to the store is gone', async () => {
    const agent = direct();
    const answer = await request(`${store.url}/plants`, { dispatcher: agent });
    await answer.body.text();
    await closeDispatcher(agent);
    await expect(request(`${store.url}/plants`, { dispatcher: agent })).rejects.toThrow();
  });

  it('ends at once a request the command gave up on, never waiting for its answer', async () => {
    const unanswered = await startFixtureServer(() => {
      // Never answers: a close that waited for it would never end.
    });
    const agent = direct();
    try {
      const givenUp = request(`${unanswered.url}/plants`, { dispatcher: agent }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      while (unanswered.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await closeDispatcher(agent);
      expect(await givenUp).toBe('plants is done with its connections');
    } finally {
      await unanswered.close();
    }
  });
});
