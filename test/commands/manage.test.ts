import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { readStoredPlants, startStoreServer, useTestStore } from '../helpers/store-server.js';
import { runCliInTty } from '../helpers/tty.js';
import { useTempUser } from '../helpers/user.js';

// list, get and delete through the real CLI against a real `plants serve` store.
const store = useTestStore({ scope: 'test' });
const user = useTempUser(store, { scope: 'test' });

async function seed(ids: readonly bigint[]): Promise<void> {
  const input = ids.map((id) => `{"id":${id},"name":"plant ${id}"${id % 2n === 0n ? ',"tag":"even"' : ''}}`).join('\n');
  const result = await user.run(['add', '--file', '-', '--concurrency', '8'], {
    input: `${input}\n{"id":0,"name":"zero"}\n`,
  });
  expect(result.code).toBe(0);
}

const lines = (stdout: string) => stdout.trim().split('\n').filter(Boolean);

describe('plants list', () => {
  it('prints NDJSON in id order when piped, ids digit for digit, one page by default', async () => {
    await seed([9223372036854775807n, 9007199254740993n, 9007199254740992n, -5n]);
    const result = await user.run(['list']);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      '{"id":-5,"name":"plant -5"}',
      '{"id":0,"name":"zero"}',
      '{"id":9007199254740992,"name":"plant 9007199254740992","tag":"even"}',
      '{"id":9007199254740993,"name":"plant 9007199254740993"}',
      '{"id":9223372036854775807,"name":"plant 9223372036854775807"}',
    ]);
  });

  it('pages with --limit and --after, and --all follows every page', async () => {
    await seed(Array.from({ length: 25 }, (_, index) => BigInt(index + 1)));
    const first = await user.run(['list', '--limit', '10']);
    expect(lines(first.stdout)).toHaveLength(10);
    const next = await user.run(['list', '--limit', '10', '--after', '9']);
    expect(JSON.parse(lines(next.stdout)[0] ?? '{}').id).toBe(10);
    const all = await user.run(['list', '--limit', '7', '--all']);
    expect(all.code).toBe(0);
    expect(lines(all.stdout).map((line) => JSON.parse(line).id)).toEqual(
      Array.from({ length: 26 }, (_, index) => index),
    );
  });

  it('lists any valid store: plants of 12 KB each, one page and --all', async () => {
    // 1,024 control characters in name and tag: about 12 KB a plant once escaped, 1.2 MB for 100.
    const wide = '\\u0001'.repeat(1024);
    const input = Array.from({ length: 100 }, (_, index) => `{"id":${index + 1},"name":"${wide}","tag":"${wide}"}`);
    const added = await user.run(['add', '--file', '-', '--concurrency', '8'], { input: `${input.join('\n')}\n` });
    expect(added.code).toBe(0);
    const page = await user.run(['list']);
    // A page ends at 512 KiB, before the 100 plants: the rest is there, and stderr says how.
    expect(page.stderr).toMatch(/^More plants: --all lists every page, --after \d+ the next one\.\n$/);
    expect(page.code).toBe(0);
    expect(lines(page.stdout).length).toBeGreaterThan(0);
    const all = await user.run(['list', '--all', '--json']);
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    expect(lines(all.stdout).map((line) => JSON.parse(line).id)).toEqual(
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
  });

  it('says on stderr when a page piped is not the last, and how to get the rest', async () => {
    await seed(Array.from({ length: 12 }, (_, index) => BigInt(index + 1)));
    const first = await user.run(['list', '--limit', '5']);
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toHaveLength(5);
    expect(first.stderr).toBe('More plants: --all lists every page, --after 4 the next one.\n');
    const json = await user.run(['list', '--limit', '5', '--after', '4', '--json']);
    expect(json.stderr).toBe('More plants: --all lists every page, --after 9 the next one.\n');
    const last = await user.run(['list', '--limit', '5', '--after', '9']);
    expect(lines(last.stdout)).toHaveLength(3);
    expect(last.stderr).toBe('');
    const all = await user.run(['list', '--limit', '5', '--all']);
    expect(all.stderr).toBe('');
  });

  it('shows a table on a terminal', async () => {
    await seed([1n, 2n]);
    const session = runCliInTty(['list'], user.env);
    expect(await session.exited).toBe(0);
    expect(session.screen).toMatch(/ID\s+NAME\s+TAG/);
    expect(session.screen).toMatch(/2\s+plant 2\s+even/);
  });

  it('refuses a bad --after locally (exit 2)', async () => {
    const result = await user.run(['list', '--after', '1.5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid id');
  });
});

describe('plants get and delete', () => {
  it('gets a plant exactly, and 404 is exit 1 with a clear message', async () => {
    await seed([9223372036854775807n]);
    const found = await user.run(['get', '9223372036854775807', '--json']);
    expect(found.code).toBe(0);
    expect(found.stdout).toBe('{"id":9223372036854775807,"name":"plant 9223372036854775807"}\n');
    const human = await user.run(['plant', 'get', '0']);
    expect(human.stdout).toContain('name  zero');
    const missing = await user.run(['get', '404']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the server answered 404');
    expect(missing.stderr).toContain('404');
    const bad = await user.run(['get', '9223372036854775808']);
    expect(bad.code).toBe(2);
  });

  it('deletes without asking when piped; 404 for a plant that is not there', async () => {
    await seed([7n]);
    const deleted = await user.run(['delete', '7']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('Deleted plant 7');
    expect(readStoredPlants(store.dbPath).map((row) => row.id)).toEqual([0n]);
    const again = await user.run(['delete', '7']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('404');
  });

  it('takes --json like get: one document on stdout, the deleted id exactly, or the Error', async () => {
    await seed([9223372036854775807n]);
    const deleted = await user.run(['delete', '9223372036854775807', '--json']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe('{"id":9223372036854775807,"deleted":true}\n');
    const again = await user.run(['delete', '9223372036854775807', '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: 404 });
    const viaOclif = await user.run(['delete', '0', '--json', '--timeout', '10'], { viaOclif: true });
    expect(viaOclif.code).toBe(0);
    expect(viaOclif.stdout).toBe('{"id":0,"deleted":true}\n');
  });

  it('asks on a terminal, and keeps the plant when the answer is no', async () => {
    await seed([8n]);
    const no = runCliInTty(['delete', '8'], user.env);
    await no.waitFor('Delete plant 8? [y/N]');
    no.type('n\r');
    expect(await no.exited).toBe(0);
    expect(readStoredPlants(store.dbPath).map((row) => row.id)).toContain(8n);
    const yes = runCliInTty(['delete', '8'], user.env);
    await yes.waitFor('Delete plant 8? [y/N]');
    yes.type('y\r');
    expect(await yes.exited).toBe(0);
    expect(readStoredPlants(store.dbPath).map((row) => row.id)).not.toContain(8n);
  });
});

describe('a pipeline', () => {
  it('copies a store into another: plants list --all --json | plants add --file -', async () => {
    await seed(Array.from({ length: 250 }, (_, index) => BigInt(index) * 36028797018963968n + 1n));
    const other = await startStoreServer();
    try {
      const listed = await user.run(['list', '--all', '--json', '--limit', '100']);
      expect(listed.code).toBe(0);
      const copied = await user.run(['add', '--file', '-', '--base-url', other.url], {
        env: { PLANTS_TOKEN: other.token },
        input: listed.stdout,
      });
      expect(copied.code).toBe(0);
      expect(readStoredPlants(other.dbPath)).toEqual(readStoredPlants(store.dbPath));
    } finally {
      await other.close();
    }
  });
});

describe('finding one’s way', () => {
  it('suggests the command that was meant on stderr and exits 127, never running it', async () => {
    const result = await user.run(['lsit']);
    expect(result.code).toBe(127);
    expect(result.stderr).toContain('Did you mean `plants list`?');
    expect(result.stdout).toBe('');
  });

  it('has help topics for the environment and the exit codes', async () => {
    const topics = await runCli(['help']);
    expect(topics.stdout).toContain('environment');
    expect(topics.stdout).toContain('exit-codes');
    expect((await runCli(['help', 'environment'])).stdout).toContain('PLANTS_BASE_URL');
    expect((await runCli(['help', 'exit-codes'])).stdout).toContain('130');
  });

  it('offers completion scripts', async () => {
    const result = await runCli(['autocomplete', 'bash'], { env: { HOME: user.dir } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('plants');
  });
});
