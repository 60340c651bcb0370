import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/client/undici-agent.js';
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
