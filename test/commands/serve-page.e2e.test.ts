import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { postgresAdminUrl, postgresBackend, type StoreLocation } from '../helpers/store-backends.js';
import { postPlant, send, waitUntil } from '../server/http-client.js';

// plants serve's page as the command offers it: the banner's address, --open, and one journal
// per instance when several share a PostgreSQL database.

const TOKEN = 'serve-page-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const temp = makeTempDir('plants-serve-page-');
const running: ServeProcess[] = [];
const locations: StoreLocation[] = [];
afterEach(async () => {
  for (const serve of running.splice(0)) if (serve.child.exitCode === null) await serve.stop('SIGKILL');
  for (const location of locations.splice(0)) await location.remove();
});
afterAll(() => temp.remove());

async function serve(args: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const started = await startServeProcess(['--port', '0', '--token', TOKEN, ...args], env);
  running.push(started);
  return started;
}

describe('plants serve and its page', () => {
  it('prints the page’s address in the banner', async () => {
    const started = await serve(['--memory']);
    await started.waitForStderr('Ctrl-C stops the server');
    expect(started.stderr).toContain(`  page: ${started.url}/_serve/ (in a browser; it asks for the token)\n`);
    const page = await send(`${started.url}/_serve/`);
    expect(page.status).toBe(200);
  });

  it('--open hands the page’s address to the browser opener (xdg-open here)', async () => {
    const bin = path.join(temp.dir, 'opener-bin');
    const opened = path.join(temp.dir, 'opened.txt');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const started = await serve(['--memory', '--open'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
    await waitUntil(() => existsSync(opened) && readFileSync(opened, 'utf8') !== '', 15_000, 'xdg-open to be run');
    expect(readFileSync(opened, 'utf8')).toBe(`${started.url}/_serve/`);
    expect(started.stderr).not.toContain('could not open a browser');
  });

  it('--open on a machine without an opener says so and goes on serving', async () => {
    const empty = path.join(temp.dir, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const started = await serve(['--memory', '--open'], { PATH: empty });
    await started.waitForStderr('could not open a browser');
    expect(started.stderr).toContain(
      `note: could not open a browser (xdg-open is not installed); open ${started.url}/_serve/ yourself`,
    );
    expect((await send(`${started.url}/livez`)).status).toBe(200);
    expect(started.child.exitCode).toBeNull();
  });
});

describe.runIf(postgresAdminUrl() !== undefined)('the page on a PostgreSQL store shared by two instances', () => {
  it('keeps a journal and controls per instance, and says it is on PostgreSQL', async () => {
    const location = await postgresBackend.create();
    locations.push(location);
    const first = await serve(['--database', location.database, '--allow-reset']);
    const second = await serve(['--database', location.database]);
    expect((await postPlant(first.url, TOKEN, '{"id":1,"name":"Only in the first journal"}')).status).toBe(200);
    const [one, two] = await Promise.all(
      [first, second].map(async (started) =>
        JSON.parse((await send(`${started.url}/_serve/journal`, { headers: auth })).text),
      ),
    );
    expect(one.store).toBe('postgres');
    expect(two.store).toBe('postgres');
    expect(one.instance).not.toBe(two.instance);
    expect(one.requests.map((r: { method: string; path: string }) => `${r.method} ${r.path}`)).toEqual([
      'POST /plants',
    ]);
    expect(two.requests).toEqual([]);
    // The plant is in the shared store, whichever instance is asked.
    expect((await send(`${second.url}/plants/1`, { headers: auth })).status).toBe(200);
    // Controls too: editable on the instance started with --allow-reset only.
    const controls = async (started: ServeProcess) =>
      JSON.parse((await send(`${started.url}/_serve/controls`, { headers: auth })).text).editable;
    expect(await controls(first)).toBe(true);
    expect(await controls(second)).toBe(false);
  });
});
