import diagnosticsChannel from 'node:diagnostics_channel';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfirmingAdder } from '../../src/client/confirming-adder.js';
import { PlantClient } from '../../src/client/plant-client.js';
import type { RetryPolicy } from '../../src/client/retry-policy.js';
import { createDirectAgent } from '../../src/client/undici-agent.js';
import type { NewPlant } from '../../src/schema/plant.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';

/**
 * A TCP relay in front of a real store, counting the requests each client connection carries
 * before the first answer goes back, and (with `swallowFirst`) cutting the first connection
 * once the store has answered that many requests on it, none of the answers passed on: every
 * request on it was applied, and the client saw no answer to any.
 */
async function startRelay(target: URL, options: { swallowFirst?: number; refuseAfterCutMs?: number } = {}) {
  const sockets = new Set<Socket>();
  /** For each client connection, in order: the requests written before the first answer reached the client. */
  const beforeFirstAnswer: number[] = [];
  let connections = 0;
  const server: Server = createServer((client) => {
    const index = connections++;
    const swallow = index === 0 ? options.swallowFirst : undefined;
    const upstream = tcpConnect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let requests = 0;
    let answered = false;
    let answers = 0;
    beforeFirstAnswer[index] = 0;
    client.on('data', (chunk: Buffer) => {
      requests += countOf(chunk, 'POST /plants HTTP/1.1');
      if (!answered) beforeFirstAnswer[index] = requests;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallow !== undefined) {
        answers += countOf(chunk, 'HTTP/1.1 ');
        if (answers >= swallow) {
          if (options.refuseAfterCutMs !== undefined) refuseFor(options.refuseAfterCutMs);
          client.destroy();
          upstream.destroy();
        }
        return;
      }
      answered = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  /** Stops listening (connections are refused) for a while, then listens on the same port again. */
  let refusing = false;
  const refuseFor = (ms: number) => {
    if (refusing) return;
    refusing = true;
    server.close();
    setTimeout(() => server.listen(port, '127.0.0.1'), ms);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    beforeFirstAnswer,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}

function countOf(chunk: Buffer, text: string): number {
  let count = 0;
  for (let at = chunk.indexOf(text); at !== -1; at = chunk.indexOf(text, at + 1)) count++;
  return count;
}

let store: StoreServer | undefined;
let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
let agent: Dispatcher | undefined;
afterEach(async () => {
  await agent?.close();
  await relay?.close();
  await store?.close();
  agent = relay = store = undefined;
});

const plants = (count: number): NewPlant[] =>
  Array.from({ length: count }, (_, at) => ({ id: BigInt(9_000_000_000_000_000 + at), name: `plant ${at}` }));

function clientOver(url: string, connections: number): PlantClient {
  agent = createDirectAgent({ connections });
  return new PlantClient({
    baseUrl: new URL(url),
    token: store?.token,
    dispatcher: agent,
    userAgent: 'plants/test',
    timeoutMs: 20_000,
  });
}

/**
 * Three adds, through a ConfirmingAdder on one connection, over a relay that cuts that first
 * connection once the store has applied all three, passing no answer on (`relayOptions` adds
 * to that): how each settled, how many requests went out before the first answer, and the ids
 * sent and stored (sorted).
 */
async function addThreeAcrossACut(relayOptions: { refuseAfterCutMs?: number }, retry: RetryPolicy) {
  store = await startStoreServer();
  relay = await startRelay(new URL(store.url), { swallowFirst: 3, ...relayOptions });
  const adder = new ConfirmingAdder({ client: clientOver(relay.url, 1), retry, skipExisting: false });
  const sent = plants(3);
  const settled = await Promise.all(sent.map((plant) => adder.add(plant)));
  const stored = await store.readPlants();
  return {
    settled,
    beforeFirstAnswer: relay.beforeFirstAnswer[0],
    sentIds: sent.map((plant) => String(plant.id)).sort(),
    storedIds: stored.map((row) => String(row.id)).sort(),
  };
}

describe('adds pipelined on one connection', () => {
  it('are undici requests: its request channel sees each add once', async () => {
    store = await startStoreServer();
    const created: string[] = [];
    const onCreate = (message: unknown) => {
      const { request } = message as { request: { method: string; path: string } };
      created.push(`${request.method} ${request.path}`);
    };
    diagnosticsChannel.subscribe('undici:request:create', onCreate);
    try {
      const client = clientOver(store.url, 16);
      const added = await Promise.all(plants(20).map((plant) => client.addPlant(plant, { retry: { attempts: 1 } })));
      expect(added.every((one) => one.status === 200)).toBe(true);
    } finally {
      diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
    }
    expect(created).toEqual(Array.from({ length: 20 }, () => 'POST /plants'));
  });

  it('go out several on one connection before the first answer comes back', async () => {
    store = await startStoreServer();
    relay = await startRelay(new URL(store.url));
    const client = clientOver(relay.url, 1);
    const sent = plants(6);
    const added = await Promise.all(sent.map((plant) => client.addPlant(plant, { retry: { attempts: 1 } })));
    expect(added.map((one) => one.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(added.map((one) => one.attempts)).toEqual([1, 1, 1, 1, 1, 1]);
    // One connection, and more than one request on it before any answer.
    expect(relay.beforeFirstAnswer.length).toBe(1);
    expect(relay.beforeFirstAnswer[0]).toBeGreaterThan(1);
    expect((await store.readPlants()).length).toBe(6);
  });

  it('written again by undici after the connection dropped: the 409 is read back, and each is added, not a conflict', async () => {
    // The first connection carries all three adds; the store applies them, then the connection
    // is cut before any answer: the first is failed (and retried by the client), the two behind
    // it are written again by undici on a new connection, where the store answers 409.
    const { settled, beforeFirstAnswer, sentIds, storedIds } = await addThreeAcrossACut(
      {},
      { attempts: 4, baseDelayMs: 10 },
    );
    expect(beforeFirstAnswer).toBe(3);
    // Each was stored once, exactly as sent, and is reported as added by this run.
    expect(settled.map((one) => one.kind)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    for (const one of settled) if (one.kind === 'confirmed') expect(one.attempts).toBe(2);
    expect(storedIds).toEqual(sentIds);
  });

  it('written once on a connection that dropped, then refused when undici writes them again: the 409 on the retry is read back', async () => {
    // As when a server is killed with adds in flight and is not back yet: the adds behind the first
    // were applied, undici's new connection for them is refused, and the client sends them again
    // once the server is back. Their 409 must be taken as possibly their own first write.
    const { settled, beforeFirstAnswer, sentIds, storedIds } = await addThreeAcrossACut(
      { refuseAfterCutMs: 300 },
      { attempts: 6, baseDelayMs: 200 },
    );
    expect(beforeFirstAnswer).toBe(3);
    expect(settled.map((one) => one.kind)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    expect(storedIds).toEqual(sentIds);
  });
});
