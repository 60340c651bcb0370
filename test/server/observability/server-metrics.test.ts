import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../../src/server/stores/sqlite/sqlite-driver.js';
import { type StoreLocation, storeBackends } from '../../helpers/store-backends.js';
import { type StoreServer, startStoreServer, TEST_TOKEN } from '../../helpers/store-server.js';
import { postPlant, send } from '../http-client.js';

/** A sample of a scrape: `name{labels} value` lines, by their name and labels. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** This machine's first address that is not loopback: a client there is not local to the server. */
function outsideAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}

describe.each(storeBackends())('GET /metrics on $name', (backend) => {
  let server: StoreServer;
  let location: StoreLocation;
  beforeAll(async () => {
    location = await backend.create();
    server = await startStoreServer({ metrics: true, database: location.database });
  });
  afterAll(async () => {
    await server?.close();
    await location?.remove();
  });
  const local = () => server.url;

  it('counts requests by route, method and status, their latency, commits and their batch sizes', async () => {
    for (let id = 1; id <= 5; id++)
      expect((await postPlant(local(), TEST_TOKEN, `{"id":${id},"name":"p"}`)).status).toBe(200);
    await Promise.all([6, 7, 8].map((id) => postPlant(local(), TEST_TOKEN, `{"id":${id},"name":"p"}`)));
    expect((await postPlant(local(), TEST_TOKEN, '{"id":1,"name":"again"}')).status).toBe(409);
    expect((await send(`${local()}/plants/3`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(
      200,
    );
    expect((await send(`${local()}/plants/99`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(
      404,
    );
    expect((await send(`${local()}/nowhere/${'x'.repeat(20)}`)).status).toBe(404);

    const scrape = await send(`${local()}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const values = samples(scrape.text);
    expect(values.get('plants_http_requests_total{route="/plants",method="POST",status="200"}')).toBe(8);
    expect(values.get('plants_http_requests_total{route="/plants",method="POST",status="409"}')).toBe(1);
    expect(values.get('plants_http_requests_total{route="/plants/{id}",method="GET",status="200"}')).toBe(1);
    expect(values.get('plants_http_requests_total{route="/plants/{id}",method="GET",status="404"}')).toBe(1);
    // Unknown paths share one label value: a client cannot make a series per path.
    expect(values.get('plants_http_requests_total{route="other",method="GET",status="404"}')).toBe(1);
    expect(values.get('plants_http_request_duration_seconds_count{route="/plants",method="POST"}')).toBe(9);
    expect(values.get('plants_http_request_duration_seconds_bucket{le="+Inf",route="/plants",method="POST"}')).toBe(9);
    // Every acknowledged add was committed; the three sent together may share a transaction.
    const commits = values.get('plants_store_commits_total') ?? 0;
    expect(commits).toBeGreaterThanOrEqual(6);
    expect(commits).toBeLessThanOrEqual(9);
    expect(values.get('plants_store_commit_batch_size_count')).toBe(commits);
    expect(values.get('plants_store_commit_batch_size_sum')).toBe(9);
    expect(values.get('plants_store_up')).toBe(1);
    // The scrape's own connection is open while it is answered.
    expect(values.get('plants_http_open_connections')).toBeGreaterThanOrEqual(1);
    expect(values.get('plants_store_errors_total')).toBe(0);
    expect(values.has('process_cpu_seconds_total')).toBe(true);
  });
});

describe('GET /metrics on sqlite, its failures and its clients', () => {
  let server: StoreServer;
  beforeAll(async () => {
    server = await startStoreServer({ metrics: true, host: '0.0.0.0', busyTimeoutMs: 50 });
  });
  afterAll(async () => {
    await server?.close();
  });
  const local = () => `http://127.0.0.1:${server.port}`;

  it('counts a failing store and says when the database is not reachable', async () => {
    const holder = new Database(server.dbPath);
    holder.pragma('busy_timeout = 0');
    try {
      holder.exec('BEGIN IMMEDIATE');
      // The server waits for the lock up to its busy timeout (short here), then answers 500.
      expect((await postPlant(local(), TEST_TOKEN, '{"id":50,"name":"blocked"}')).status).toBe(500);
    } finally {
      holder.exec('ROLLBACK');
    }
    holder.pragma('user_version = 9');
    let values: Map<string, number>;
    try {
      values = samples((await send(`${local()}/metrics`)).text);
    } finally {
      holder.pragma('user_version = 1');
      holder.close();
    }
    expect(values.get('plants_store_errors_total')).toBe(1);
    expect(values.get('plants_store_up')).toBe(0);
    expect(values.get('plants_http_requests_total{route="/plants",method="POST",status="500"}')).toBe(1);
    expect(samples((await send(`${local()}/metrics`)).text).get('plants_store_up')).toBe(1);
  });

  it('wants a token from a client that is not on loopback', async () => {
    const address = outsideAddress();
    if (address === undefined) throw new Error('this machine has no address but loopback to try a remote client from');
    const remote = `http://${address}:${server.port}/metrics`;
    const bare = await send(remote);
    expect(bare.status).toBe(401);
    expect(bare.headers['www-authenticate']).toBe('Bearer realm="plants"');
    expect(bare.text).not.toContain('plants_');
    expect((await send(remote, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(200);
  });
});

describe('GET /metrics with a metrics token', () => {
  let server: StoreServer;
  const metricsToken = 'scrape-only-token-123';
  beforeAll(async () => {
    server = await startStoreServer({ metrics: true, metricsToken });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('wants that token (or a store token) even on loopback', async () => {
    expect((await send(`${server.url}/metrics`)).status).toBe(401);
    expect((await send(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(
      401,
    );
    const scraped = await send(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE plants_http_requests_total counter');
    expect((await send(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(
      200,
    );
  });

  it('does not let the metrics token add plants', async () => {
    expect((await postPlant(server.url, metricsToken, '{"id":1,"name":"p"}')).status).toBe(401);
  });
});

describe('without --metrics', () => {
  it('has no /metrics', async () => {
    const server = await startStoreServer();
    try {
      expect((await send(`${server.url}/metrics`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('refuses a metrics token without the metrics, or one no bearer token could be', async () => {
    await expect(startStoreServer({ metricsToken: 'abc' })).rejects.toThrow(
      'a metrics token needs the metrics turned on',
    );
    await expect(startStoreServer({ metrics: true, metricsToken: 'has space' })).rejects.toThrow(
      'the metrics token has characters a bearer token cannot have',
    );
  });
});
