import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoreFile, type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { postPlant, send, waitUntil } from './http-client.js';

let server: StoreServer;

beforeAll(async () => {
  server = await startStoreServer();
});

afterAll(async () => {
  await server?.close();
});

describe('probes', () => {
  it.each([
    ['/livez', '{"status":"ok"}'],
    ['/healthz', '{"status":"ok"}'],
    ['/readyz', '{"status":"ready"}'],
  ])('answers GET and HEAD %s with 200 and no token', async (path, body) => {
    const answer = await send(`${server.url}${path}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.text).toBe(body);
    const head = await send(`${server.url}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers /readyz 503 while the database holds a schema this server does not serve, and 200 again after', async () => {
    // Another program (a newer plants on the same file, say) moves the schema on under us.
    readStoreFile(server.dbPath, (db) => db.pragma('user_version = 2'));
    try {
      const answer = await send(`${server.url}/readyz`);
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({
        error: 503,
        message: 'the database schema is at version 2; this plants serves version 1',
      });
      // Live all the same: the process answers, and restarting it would not help.
      expect((await send(`${server.url}/livez`)).status).toBe(200);
    } finally {
      readStoreFile(server.dbPath, (db) => db.pragma('user_version = 1'));
    }
    expect((await send(`${server.url}/readyz`)).status).toBe(200);
  });

  it('leaves probes out of the request log', async () => {
    const before = server.logLines.length;
    for (const path of ['/livez', '/readyz', '/healthz']) await send(`${server.url}${path}`);
    await postPlant(server.url, server.token, '{"id":1,"name":"logged"}');
    await waitUntil(() => server.logLines.length > before, 2000, 'a log line');
    expect(server.logLines.slice(before).map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'POST /plants 200',
    ]);
  });

  it('are in the served contract, without a token', async () => {
    const doc = (await send(`${server.url}/openapi.json`)).json as {
      paths: Record<string, { get: { security: unknown[]; responses: Record<string, unknown> } }>;
    };
    for (const path of ['/livez', '/readyz', '/healthz']) expect(doc.paths[path]?.get.security).toEqual([]);
    expect(Object.keys(doc.paths['/readyz']?.get.responses ?? {})).toEqual(['200', '408', '431', '503']);
  });
});
