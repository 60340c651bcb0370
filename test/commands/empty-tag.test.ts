import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { type StoreServer, startStoreServer } from '../helpers/store-server.js';
import { runCliInTty } from '../helpers/tty.js';

// An empty tag (`--tag ""`, `"tag":""`) is a valid NewPlant (the seed interface sets no
// minimum length): it is sent as given and stored, JSON shows it exactly as stored, and every
// human rendering shows it as no tag (never `[]`, never an empty `tag` line).
let store: StoreServer;
const temp = makeTempDir();
let env: Record<string, string>;
beforeAll(async () => {
  store = await startStoreServer();
  env = { PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'), PLANTS_BASE_URL: store.url, PLANTS_TOKEN: store.token };
});
afterAll(async () => {
  await store.close();
  temp.remove();
});

describe('an empty tag', () => {
  it('is stored and answered as sent by the server, and the CLI says the same', async () => {
    const raw = await fetch(`${store.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
      body: '{"id":10,"name":"Moss","tag":""}',
    });
    expect(raw.status).toBe(200);
    const rawBody = await raw.text();
    expect(JSON.parse(rawBody)).toEqual({ id: 10, name: 'Moss', tag: '' });

    const json = await runCli(['add', '--id', '11', '--name', 'Moss', '--tag', '', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ id: 11, name: 'Moss', tag: '' });
    expect((await store.readPlants()).find((row) => row.id === 11n)?.tag).toBe('');
  });

  it('add: the human line shows no tag', async () => {
    const result = await runCli(['add', '--id', '1', '--name', 'Fern', '--tag', ''], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ Added plant 1: Fern\n');
  });

  it('get: no tag line; --json the body as stored', async () => {
    await runCli(['add', '--id', '2', '--name', 'Ivy', '--tag', ''], { env });
    const human = await runCli(['get', '2'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe('id    2\nname  Ivy\n');
    const json = await runCli(['get', '2', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({ id: 2, name: 'Ivy', tag: '' });
  });

  it('list: an empty cell in the table, "tag":"" in NDJSON', async () => {
    await runCli(['add', '--id', '3', '--name', 'Oak', '--tag', ''], { env });
    const json = await runCli(['list', '--after', '2', '--limit', '1'], { env });
    expect(json.stdout).toBe('{"id":3,"name":"Oak","tag":""}\n');
    const table = runCliInTty(['list', '--after', '2', '--limit', '1'], env);
    expect(await table.exited).toBe(0);
    expect(table.screen).toMatch(/\n\s*3 {2}Oak\r?\n/);
    expect(table.screen).not.toContain('[]');
  });
});
