import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { storeBackends } from '../helpers/store-backends.js';
import { postPlant, send, waitUntil } from '../server/http-client.js';

const TOKEN = 'serve-log-token-5d41402abc4b2a76';
let running: ServeProcess | undefined;
afterEach(async () => {
  if (running !== undefined && running.child.exitCode === null) await running.stop('SIGKILL');
  running = undefined;
});

/** stderr's lines that are JSON objects (the banner is text). */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function requestLines(serve: ServeProcess, count: number): Promise<Array<Record<string, unknown>>> {
  const lines = () => jsonLines(serve.stderr).filter((line) => line.msg === 'request');
  await waitUntil(() => lines().length >= count, 5000, `${count} request log lines`);
  return lines();
}

describe.each(storeBackends())('plants serve --log-format json on $name', (backend) => {
  it('writes one JSON object per request, with the request id the answer carries, and no secret', async () => {
    const location = await backend.create();
    running = await startServeProcess([
      '--port',
      '0',
      '--database',
      location.database,
      '--token',
      TOKEN,
      '--log-format',
      'json',
    ]);
    const serve = running;
    const given = await postPlant(serve.url, TOKEN, '{"id":1,"name":"SECRET-BODY-NAME"}', {
      'x-request-id': 'trace-42.a',
    });
    expect(given.headers['x-request-id']).toBe('trace-42.a');
    const madeUp = await send(`${serve.url}/plants?limit=1&access_token=${TOKEN}&after=0`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': '<script>alert(1)</script>' },
    });
    expect(madeUp.status).toBe(200);
    expect(madeUp.headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const refused = await postPlant(serve.url, 'wrong-token-value-123', '{"id":2,"name":"x"}');
    expect(refused.status).toBe(401);
    for (const probe of ['/healthz', '/livez', '/readyz'])
      expect((await send(`${serve.url}${probe}`)).status).toBe(200);

    const lines = await requestLines(serve, 3);
    expect(lines).toHaveLength(3);
    const [first, second, third] = lines;
    expect(first).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      instance: expect.stringMatching(/^.+:\d+$/),
      request_id: 'trace-42.a',
      method: 'POST',
      path: '/plants',
      status: 200,
      duration_ms: expect.any(Number),
      bytes: Buffer.byteLength(given.text),
      msg: 'request',
    });
    expect(Math.abs(Date.parse(first?.time as string) - Date.now())).toBeLessThan(60_000);
    expect(String(first?.instance).endsWith(`:${serve.child.pid}`)).toBe(true);
    expect(second).toMatchObject({
      request_id: madeUp.headers['x-request-id'],
      method: 'GET',
      path: '/plants',
      query: 'limit=1&access_token=[redacted]&after=0',
      status: 200,
      bytes: Buffer.byteLength(madeUp.text),
    });
    expect(third).toMatchObject({ method: 'POST', status: 401, request_id: refused.headers['x-request-id'] });
    // The banner says where; the lines say nothing secret.
    expect(serve.stderr).not.toContain(TOKEN);
    expect(serve.stderr).not.toContain('wrong-token-value-123');
    expect(serve.stderr).not.toContain('SECRET-BODY-NAME');
    expect(serve.stderr).not.toContain('<script>');
    expect(await serve.stop('SIGTERM')).toBe(0);
    expect(await location.readPlants()).toEqual([{ id: 1n, name: 'SECRET-BODY-NAME', tag: null }]);
    await location.remove();
  });
});

describe('plants serve --log-format json, levels and the default', () => {
  it('logs the probes at --log-level debug, and nothing but internal errors with --quiet', async () => {
    running = await startServeProcess([
      '--port',
      '0',
      '--memory',
      '--token',
      TOKEN,
      '--log-format',
      'json',
      '--log-level',
      'debug',
    ]);
    const id = randomUUID();
    await send(`${running.url}/readyz`, { headers: { 'x-request-id': id } });
    const [line] = await requestLines(running, 1);
    expect(line).toMatchObject({ level: 'debug', path: '/readyz', status: 200, request_id: id });
    await running.stop('SIGTERM');

    running = await startServeProcess(['--port', '0', '--memory', '--token', TOKEN, '--log-format', 'json', '--quiet']);
    await postPlant(running.url, TOKEN, '{"id":1,"name":"x"}');
    await running.stop('SIGTERM');
    expect(jsonLines(running.stderr)).toEqual([]);
  });

  it('keeps the text line by default', async () => {
    running = await startServeProcess(['--port', '0', '--memory', '--token', TOKEN]);
    await postPlant(running.url, TOKEN, '{"id":1,"name":"x"}');
    await running.waitForStderr('POST /plants 200 ');
    expect(running.stderr).toMatch(/^POST \/plants 200 \d+\.\dms$/m);
    expect(jsonLines(running.stderr)).toEqual([]);
  });
});

describe.each(storeBackends())('plants serve --metrics on $name', (backend) => {
  it('serves a scrape a Prometheus server can read, on loopback without a token', async () => {
    const location = await backend.create();
    running = await startServeProcess(['--port', '0', '--database', location.database, '--token', TOKEN, '--metrics']);
    await postPlant(running.url, TOKEN, '{"id":1,"name":"x"}');
    const scrape = await send(`${running.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.text).toMatch(/^# HELP plants_http_requests_total /m);
    expect(scrape.text).toContain('plants_http_requests_total{route="/plants",method="POST",status="200"} 1\n');
    expect(scrape.text).toContain('plants_store_commits_total 1\n');
    expect(scrape.text).toContain('plants_store_up 1\n');
    // Scrapes are left out of the request log, like probes.
    await postPlant(running.url, TOKEN, '{"id":2,"name":"y"}');
    await running.waitForStderr('POST /plants 200 ');
    await waitUntil(() => running?.stderr.split('POST /plants 200 ').length === 3, 5000, 'two log lines');
    expect(running.stderr).not.toContain('/metrics');
    await running.stop('SIGTERM');
    expect(await location.readPlants()).toEqual([
      { id: 1n, name: 'x', tag: null },
      { id: 2n, name: 'y', tag: null },
    ]);
    await location.remove();
  });
});

describe('plants serve --metrics-token', () => {
  it('wants --metrics-token on loopback too once it is given', async () => {
    running = await startServeProcess([
      '--port',
      '0',
      '--memory',
      '--token',
      TOKEN,
      '--metrics',
      '--metrics-token',
      'scraper-token-1',
    ]);
    expect((await send(`${running.url}/metrics`)).status).toBe(401);
    const scrape = await send(`${running.url}/metrics`, { headers: { authorization: 'Bearer scraper-token-1' } });
    expect(scrape.status).toBe(200);
    expect(running.stderr).not.toContain('scraper-token-1');
  });
});
