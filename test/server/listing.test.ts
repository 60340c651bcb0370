import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/client/transport.js';
import { MAX_PAGE_BYTES, renderPage } from '../../src/server/listing.js';
import { storeBackends } from '../helpers/store-backends.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { send } from './http-client.js';

describe('renderPage', () => {
  const items = [1n, 2n, 3n].map((id) => ({ id }));
  const render = (item: { id: bigint }) => `"${'x'.repeat(8)}${item.id}"`;

  it('stops at limit, or before the item that would pass the byte bound, never before the first', () => {
    expect(renderPage(items, 2, render)).toEqual({ body: '["xxxxxxxx1","xxxxxxxx2"]', nextAfter: 2n });
    expect(renderPage(items, 3, render)).toEqual({
      body: '["xxxxxxxx1","xxxxxxxx2","xxxxxxxx3"]',
      nextAfter: undefined,
    });
    expect(renderPage(items, 3, render, 26)).toEqual({ body: '["xxxxxxxx1","xxxxxxxx2"]', nextAfter: 2n });
    expect(renderPage(items, 3, render, 5)).toEqual({ body: '["xxxxxxxx1"]', nextAfter: 1n });
  });

  it('fits a page within what the client reads', () => {
    expect(MAX_PAGE_BYTES).toBeLessThan(MAX_RESPONSE_BYTES);
  });
});

describe.each(storeBackends())('on $name', (backend) => {
  // GET /plants, GET and DELETE /plants/{id} over HTTP against the real server.
  let server: StoreServer;
  const auth = () => ({ authorization: `Bearer ${server.token}` });
  const ids = [-9223372036854775808n, -1n, 0n, 9007199254740992n, 9007199254740993n, 9223372036854775807n];

  beforeAll(async () => {
    server = await startStoreServer({ backend });
    for (const id of ids) {
      const answer = await send(`${server.url}/plants`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: `{"id":${id},"name":"p${id}"${id === 0n ? ',"tag":"zero"' : ''}}`,
      });
      expect(answer.status).toBe(200);
    }
  });
  afterAll(() => server.close());

  describe('GET /plants', () => {
    it('lists in id order with exact ids, 100 by default', async () => {
      const answer = await send(`${server.url}/plants`, { headers: auth() });
      expect(answer.status).toBe(200);
      expect(answer.headers.link).toBeUndefined();
      expect((answer.json as Array<{ id: bigint | number }>).map((plant) => BigInt(plant.id))).toEqual(ids);
      expect(answer.text).toContain('{"id":0,"name":"p0","tag":"zero"}');
      expect(answer.text).toContain('{"id":9223372036854775807,"name":"p9223372036854775807"}');
    });

    it('pages with limit and after, with a Link to the next page while there is more', async () => {
      const first = await send(`${server.url}/plants?limit=4`, { headers: auth() });
      expect((first.json as unknown[]).length).toBe(4);
      expect(first.headers.link).toBe('</plants?limit=4&after=9007199254740992>; rel="next"');
      const second = await send(`${server.url}/plants?limit=4&after=9007199254740992`, { headers: auth() });
      expect((second.json as Array<{ id: bigint }>).map((plant) => BigInt(plant.id))).toEqual(ids.slice(4));
      expect(second.headers.link).toBeUndefined();
      const capped = await send(`${server.url}/plants?limit=5000`, { headers: auth() });
      expect(capped.status).toBe(200);
    });

    it.each(['limit=0', 'limit=-1', 'limit=abc', 'limit=1.5', 'after=9223372036854775808', 'after=1.0', 'after=x'])(
      'refuses ?%s with 400 naming the parameter',
      async (query) => {
        const answer = await send(`${server.url}/plants?${query}`, { headers: auth() });
        expect(answer.status).toBe(400);
        expect((answer.json as { message: string }).message).toMatch(/^(limit|after): /);
      },
    );

    it('needs the token', async () => {
      expect((await send(`${server.url}/plants`)).status).toBe(401);
    });

    it('ends a page before it would outgrow what the client reads, and the next page goes on from there', async () => {
      // 1,024 control characters are 6 bytes each once escaped: about 12 KB a plant.
      const wide = '\\u0001'.repeat(1024);
      const wideIds = Array.from({ length: 100 }, (_, index) => BigInt(1000 + index));
      for (const id of wideIds) {
        const answer = await send(`${server.url}/plants`, {
          method: 'POST',
          headers: { ...auth(), 'content-type': 'application/json' },
          body: `{"id":${id},"name":"${wide}","tag":"${wide}"}`,
        });
        expect(answer.status).toBe(200);
      }
      const seen: bigint[] = [];
      let next: string | undefined = '/plants?limit=1000&after=999';
      let pages = 0;
      while (next !== undefined) {
        const page = await send(`${server.url}${next}`, { headers: auth() });
        expect(page.status).toBe(200);
        expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
        seen.push(...(page.json as Array<{ id: bigint | number }>).map((plant) => BigInt(plant.id)));
        next = /^<([^>]+)>; rel="next"$/.exec(page.headers.link ?? '')?.[1];
        pages += 1;
      }
      expect(pages).toBeGreaterThan(1);
      expect(seen).toEqual([...wideIds, 9007199254740992n, 9007199254740993n, 9223372036854775807n]);
      for (const id of wideIds) {
        await send(`${server.url}/plants/${id}`, { method: 'DELETE', headers: auth() });
      }
    });
  });

  describe('GET and DELETE /plants/{id}', () => {
    it('gets a plant by its exact id; 404 when there is none; 400 for a bad id', async () => {
      const found = await send(`${server.url}/plants/9007199254740993`, { headers: auth() });
      expect(found.text).toBe('{"id":9007199254740993,"name":"p9007199254740993"}');
      const missing = await send(`${server.url}/plants/42`, { headers: auth() });
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ error: 404, message: 'no plant with id 42' });
      for (const bad of ['9223372036854775808', '1.5', 'abc', '%20']) {
        expect((await send(`${server.url}/plants/${bad}`, { headers: auth() })).status).toBe(400);
      }
      expect((await send(`${server.url}/plants/1`)).status).toBe(401);
    });

    it('deletes a plant (204), durably, and then it is gone (404)', async () => {
      const deleted = await send(`${server.url}/plants/-1`, { method: 'DELETE', headers: auth() });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await server.readPlants()).map((row) => row.id)).not.toContain(-1n);
      const again = await send(`${server.url}/plants/-1`, { method: 'DELETE', headers: auth() });
      expect(again.status).toBe(404);
      expect((await send(`${server.url}/plants/0`, { method: 'DELETE' })).status).toBe(401);
      expect((await server.readPlants()).map((row) => row.id)).toContain(0n);
    });

    it('is declared in /openapi.json', async () => {
      const document = (await send(`${server.url}/openapi.json`)).json as {
        paths: Record<string, Record<string, unknown>>;
      };
      expect(Object.keys(document.paths['/plants'] ?? {})).toEqual(expect.arrayContaining(['post', 'get']));
      expect(Object.keys(document.paths['/plants/{id}'] ?? {})).toEqual(expect.arrayContaining(['get', 'delete']));
    });
  });
});
