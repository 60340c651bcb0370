import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../src/server/listen.js';
import type { PlantServerOptions } from '../../src/server/server-options.js';
import { makeObservers, openStore, wireRoutes } from '../../src/server/start.js';
import type { PlantStore } from '../../src/server/stores/plant-store.js';

import { TEST_TOKEN } from '../helpers/store-server.js';
import { postPlant, send } from './http-client.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const options: PlantServerOptions = {
  host: '127.0.0.1',
  port: 0,
  database: ':memory:',
  durability: 'full',
  tokens: [TEST_TOKEN],
  seed: { source: '--seed seed.ndjson', plants: [{ id: 7n, name: 'Fern' }], where: ['line 1'] },
};

describe('the start-up steps, called one by one', () => {
  it('listen, open the store with its seed, wire the routes: a store that serves, resets and journals', async () => {
    const observers = await makeObservers(options, { checkStore: () => Promise.resolve(), openConnections: () => 0 });
    const listening = await listen(options);
    cleanups.push(() => listening.abort());
    const store: PlantStore = await openStore(options);
    cleanups.push(() => store.close());
    const routes = wireRoutes(options, store, observers);
    listening.serve(routes.app, observers.onInternalError);

    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    expect((await postPlant(listening.url, TEST_TOKEN, '{"id":8,"name":"Ivy"}')).status).toBe(200);
    expect((await send(`${listening.url}/plants`, { headers: auth })).text).toBe(
      '[{"id":7,"name":"Fern"},{"id":8,"name":"Ivy"}]',
    );
    await routes.reset();
    expect((await send(`${listening.url}/plants`, { headers: auth })).text).toBe('[{"id":7,"name":"Fern"}]');
    expect(routes.journal.stats().lastSeq).toBe(3);
    // Without allowReset, POST /reset is not served, whatever the code may do.
    expect((await send(`${listening.url}/reset`, { method: 'POST', headers: auth })).status).toBe(404);
  });
});
