import { afterEach, describe, expect, it } from 'vitest';
import { type Listening, listen } from '../../src/server/listen.js';
import { RawConnection } from './http-client.js';

const opened: Listening[] = [];
afterEach(async () => {
  for (const listening of opened.splice(0)) await listening.abort();
});

async function listening(): Promise<Listening> {
  const made = await listen({ host: '127.0.0.1', port: 0 });
  opened.push(made);
  return made;
}

const GET = 'GET /anything HTTP/1.1\r\nhost: x\r\n\r\n';

describe('listen, the first step of a start', () => {
  it('holds a request that comes before the app, then hands it to the app', async () => {
    const server = await listening();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.pageUrl).toBe(`${server.url}/_serve/`);
    const early = new RawConnection(server.port);
    await early.write(GET);
    expect(await early.waitForResponse(200)).toBeUndefined();
    server.serve(
      (_req, res) => res.end('served'),
      () => undefined,
    );
    const answer = await early.waitForResponse();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe('served');
    early.destroy();
  });

  it('cuts the requests waiting for an app when aborted, and gives the port back', async () => {
    const server = await listening();
    const early = new RawConnection(server.port);
    await early.write(GET);
    await server.abort();
    expect(await early.waitForClose()).toBe(true);
    expect(early.raw).toBe('');
    const again = await listen({ host: '127.0.0.1', port: server.port });
    await again.abort();
  });

  it('closes once the request in flight is answered', async () => {
    const server = await listening();
    let answer: (() => void) | undefined;
    server.serve(
      (_req, res) => {
        answer = () => res.end('late');
      },
      () => undefined,
    );
    const client = new RawConnection(server.port);
    await client.write(GET);
    await expect.poll(() => answer).toBeDefined();
    expect(server.connectionCount()).toBe(1);
    const closed = server.close(60_000);
    answer?.();
    const response = await client.waitForResponse();
    expect(response?.body).toBe('late');
    await closed;
    expect(await client.waitForClose()).toBe(true);
  });
});
