import { describe, expect, it } from 'vitest';
import { useTestStore } from '../helpers/store-server.js';
import { runCliInTty } from '../helpers/tty.js';
import { useTempUser } from '../helpers/user.js';

// An empty tag (`--tag ""`, `"tag":""`) is a valid NewPlant (the seed interface sets no
// minimum length): it is sent as given and stored, JSON shows it exactly as stored, and every
// human rendering shows it as no tag (never `[]`, never an empty `tag` line).
const store = useTestStore();
const user = useTempUser(store);

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

    const json = await user.run(['add', '--id', '11', '--name', 'Moss', '--tag', '', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ id: 11, name: 'Moss', tag: '' });
    expect((await store.readPlants()).find((row) => row.id === 11n)?.tag).toBe('');
  });

  it('add: the human line shows no tag', async () => {
    const result = await user.run(['add', '--id', '1', '--name', 'Fern', '--tag', '']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ Added plant 1: Fern\n');
  });

  it('get: no tag line; --json the body as stored', async () => {
    await user.run(['add', '--id', '2', '--name', 'Ivy', '--tag', '']);
    const human = await user.run(['get', '2']);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe('id    2\nname  Ivy\n');
    const json = await user.run(['get', '2', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ id: 2, name: 'Ivy', tag: '' });
  });

  it('list: an empty cell in the table, "tag":"" in NDJSON', async () => {
    await user.run(['add', '--id', '3', '--name', 'Oak', '--tag', '']);
    const json = await user.run(['list', '--after', '2', '--limit', '1']);
    expect(json.stdout).toBe('{"id":3,"name":"Oak","tag":""}\n');
    const table = runCliInTty(['list', '--after', '2', '--limit', '1'], user.env);
    expect(await table.exited).toBe(0);
    expect(table.screen).toMatch(/\n\s*3 {2}Oak\r?\n/);
    expect(table.screen).not.toContain('[]');
  });
});
