import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerOptionsError } from '../../src/server/errors.js';
import { runCli } from '../helpers/cli.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { send } from './http-client.js';

const APP = 'http://localhost:5173';
const OTHER = 'https://app.example';

describe('serve with CORS for named origins', () => {
  let server: StoreServer;
  let plain: StoreServer;
  beforeAll(async () => {
    server = await startStoreServer({ corsOrigins: [APP, 'https://Staging.Example:8443'] });
    plain = await startStoreServer();
  });
  afterAll(async () => {
    await server?.close();
    await plain?.close();
  });

  const preflight = (url: string, origin: string, method = 'POST') =>
    send(`${url}/plants`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('answers a preflight from a named origin with 204 and what it may send, without a token', async () => {
    const answer = await preflight(server.url, APP);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, DELETE');
    expect(answer.headers['access-control-allow-headers']).toBe('authorization, content-type');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(answer.headers.vary).toBe('Origin');
    // Origins compare as browsers send them: lower-case host, default port left out.
    expect((await preflight(server.url, 'https://staging.example:8443')).status).toBe(204);
  });

  it('lets a named origin read the answer, paging and back-off headers included', async () => {
    const answer = await send(`${server.url}/plants`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: '{"id":1,"name":"from the browser"}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-expose-headers']).toBe('link, retry-after, www-authenticate');
    const refused = await send(`${server.url}/plants`, { headers: { origin: APP } });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP);
  });

  it('gives any other origin no CORS header, and its preflight the 405 of any other method', async () => {
    const answer = await preflight(server.url, OTHER);
    expect(answer.status).toBe(405);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const get = await send(`${server.url}/plants`, {
      headers: { origin: OTHER, authorization: `Bearer ${server.token}` },
    });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(get.headers.vary).toBe('Origin');
  });

  it('is off by default: no CORS header for anyone', async () => {
    const answer = await preflight(plain.url, APP);
    expect(answer.status).toBe(405);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([['*'], ['http://*.example'], ['localhost:5173'], ['ftp://files.example'], ['http://app.example/path']])(
    'refuses --cors %s at start (exit 2)',
    async (origin) => {
      await expect(startStoreServer({ corsOrigins: [origin] })).rejects.toBeInstanceOf(ServerOptionsError);
    },
  );

  it('takes --cors on the command line, repeatable, and refuses * with exit 2', async () => {
    const result = await runCli(['serve', '--port', '0', '--memory', '--token', 'abc', '--cors', APP, '--cors', '*']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'plants: --cors "*": only named origins are allowed, not *; give an origin such as http://localhost:5173',
    );
  });
});
