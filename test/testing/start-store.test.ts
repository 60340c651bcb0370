import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Store, type StoreOptions, startStore } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/cli.js';
import { postPlant, send } from '../server/http-client.js';

const MAX_ID = 9223372036854775807n;
const started: Store[] = [];
afterEach(async () => {
  for (const store of started.splice(0)) await store.close();
});

async function start(options?: StoreOptions): Promise<Store> {
  const store = await startStore(options);
  started.push(store);
  return store;
}

const auth = (store: Store) => ({ authorization: `Bearer ${store.token}` });
const list = async (store: Store) => (await send(`${store.url}/plants`, { headers: auth(store) })).json;

describe('startStore', () => {
  it('starts isolated stores: each its own port, token and plants', async () => {
    const a = await start({ seed: [{ id: MAX_ID, name: 'Max' }] });
    const b = await start();
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b.url).not.toBe(a.url);
    expect(b.token).not.toBe(a.token);
    expect(await list(a)).toEqual([{ id: MAX_ID, name: 'Max' }]);
    expect(await list(b)).toEqual([]);
    expect((await postPlant(b.url, b.token, '{"id":1,"name":"Fern"}')).status).toBe(200);
    expect((await postPlant(b.url, a.token, '{"id":2,"name":"Ivy"}')).status).toBe(401);
    expect(await list(a)).toEqual([{ id: MAX_ID, name: 'Max' }]);
    expect(await list(b)).toEqual([{ id: 1, name: 'Fern' }]);
  });

  it('takes the token given, and a seed file as serve --seed does', async () => {
    const temp = makeTempDir('plants-start-store-');
    try {
      const file = path.join(temp.dir, 'seed.ndjson');
      writeFileSync(file, '{"id":5,"name":"Basil","tag":"herb"}\n{"id":6,"name":"Mint"}\n');
      const store = await start({ token: 'my-test-token', seed: file });
      expect(store.token).toBe('my-test-token');
      expect(await list(store)).toEqual([
        { id: 5, name: 'Basil', tag: 'herb' },
        { id: 6, name: 'Mint' },
      ]);
    } finally {
      temp.remove();
    }
  });

  it('keeps plants in a db file across stores, and refuses a seed that disagrees with them', async () => {
    const temp = makeTempDir('plants-start-store-');
    try {
      const db = path.join(temp.dir, 'plants.db');
      const first = await start({ db, seed: [{ id: 1, name: 'Fern' }] });
      await first.close();
      const again = await start({ db, seed: [{ id: 1, name: 'Fern' }] });
      expect(await list(again)).toEqual([{ id: 1, name: 'Fern' }]);
      await again.close();
      await expect(startStore({ db, seed: [{ id: 1, name: 'Ivy' }] })).rejects.toThrow(
        'startStore: seed[0]: plant 1 is stored already as {"id":1,"name":"Fern"}, the seed has {"id":1,"name":"Ivy"}; nothing was added',
      );
    } finally {
      temp.remove();
    }
  });

  it('closes through await using at the end of a block', async () => {
    let url = '';
    {
      await using store = await startStore();
      url = store.url;
      expect((await send(`${url}/livez`)).status).toBe(200);
    }
    await expect(send(`${url}/livez`)).rejects.toThrow();
  });

  it('resets to the seed, sets and clears faults and delays, and reads the journal', async () => {
    const store = await start({ seed: [{ id: 1, name: 'Fern' }] });
    expect((await postPlant(store.url, store.token, '{"id":2,"name":"Ivy"}')).status).toBe(200);
    await store.reset();
    expect(await list(store)).toEqual([{ id: 1, name: 'Fern' }]);

    expect(store.setControls({ faults: [{ kind: '503', rate: 1 }], delay: 5 })).toEqual({
      delay: { minMs: 5, maxMs: 5 },
      faults: [{ kind: '503', rate: 1 }],
      faultSeed: 0,
    });
    expect((await postPlant(store.url, store.token, '{"id":3,"name":"Oak"}')).status).toBe(503);
    store.setControls({ faults: [], delay: null });
    expect(store.controls()).toEqual({ delay: null, faults: [], faultSeed: 0 });
    expect((await postPlant(store.url, store.token, '{"id":3,"name":"Oak"}')).status).toBe(200);

    const journal = store.journal();
    expect(journal.map((entry) => [entry.method, entry.path, entry.status, entry.fault])).toEqual([
      ['POST', '/plants', 200, undefined],
      ['GET', '/plants', 200, undefined],
      ['POST', '/plants', 503, '503'],
      ['POST', '/plants', 200, undefined],
    ]);
    const served = await send(`${store.url}/_serve/journal`, { headers: auth(store) });
    expect((JSON.parse(served.text) as { requests: unknown[] }).requests).toEqual(journal);
  });

  it('keeps POST /reset and the controls over HTTP for allowReset, as serve does', async () => {
    const closed = await start();
    const open = await start({ allowReset: true });
    const reset = (store: Store) => send(`${store.url}/reset`, { method: 'POST', headers: auth(store) });
    expect((await reset(closed)).status).toBe(404);
    expect((await reset(open)).status).toBe(200);
  });

  const refusals: Array<[string, unknown, string]> = [
    ['an unknown option', { tokn: 'x' }, 'startStore: unknown option "tokn"; the options are token, seed, db'],
    ['options that are no object', 'memory', 'startStore: the options must be an object'],
    ['a token with a scheme', { token: 'Bearer abc' }, 'startStore: token must be a bearer token: the token starts'],
    ['a seed plant without a name', { seed: [{ id: 1, name: 'a' }, { id: 2 }] }, 'startStore: seed[1]: invalid plant'],
    ['a seed id past int64', { seed: [{ id: 2n ** 63n, name: 'x' }] }, 'startStore: seed[0]: invalid plant: id'],
    [
      'an id seeded twice, other fields',
      {
        seed: [
          { id: 1, name: 'a' },
          { id: 1, name: 'b' },
        ],
      },
      'seed[1]: id 1',
    ],
    [
      'a seed file that is not there',
      { seed: '/nonexistent/seed.ndjson' },
      'startStore: seed /nonexistent/seed.ndjson: cannot read it',
    ],
    ['db and database', { db: 'a.db', database: 'file:b.db' }, 'startStore: give db or database, not both'],
    ['a database of no kind served', { database: 'mysql://x' }, 'startStore: database must be a postgres://'],
    ['a negative delay', { delay: -1 }, 'startStore: delay.minMs: must be a whole number of milliseconds'],
    [
      'a rate above 1',
      { faults: [{ kind: '503', rate: 2 }] },
      'startStore: faults[0].rate: must be a number from 0 to 1',
    ],
    ['an unknown fault', { faults: [{ kind: 'boom', rate: 1 }] }, 'startStore: faults[0].kind: must be one of 503'],
    ['a fault seed that is no integer', { faultSeed: 1.5 }, 'startStore: faultSeed: must be a whole number'],
    ['allowReset that is no boolean', { allowReset: 'yes' }, 'startStore: allowReset must be true or false'],
  ];
  it.each(refusals)('refuses %s with a TypeError naming it', async (_case, options, message) => {
    const error = await startStore(options as StoreOptions).then(
      (store) => store.close().then(() => undefined),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain(message);
  });

  it('refuses a bad setControls update with a TypeError naming the field, leaving the controls', async () => {
    const store = await start();
    expect(() => store.setControls({ faults: [{ kind: 'stall', rate: -1 }] })).toThrow(
      new TypeError(
        'startStore: setControls: faults[0].rate: must be a number from 0 to 1 (the fraction of plant requests it meets)',
      ),
    );
    expect(() => store.setControls({ delays: 5 } as never)).toThrow(/setControls: unknown field "delays"/);
    expect(store.controls()).toEqual({ delay: null, faults: [], faultSeed: 0 });
  });
});
