import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLineError } from '../helpers/reliability.js';
import { useServeProcesses } from '../helpers/serve-process.js';
import { runCliInTty } from '../helpers/tty.js';
import { useTempUser } from '../helpers/user.js';
import { postPlant, send } from '../server/http-client.js';

// plants reset through the real CLI against a real plants serve --allow-reset.

const TOKEN = 'reset-command-token-0123456789';
const user = useTempUser(undefined, { token: TOKEN });
const serves = useServeProcesses();

const SEED = '{"id":2,"name":"Ivy"}\n{"id":9223372036854775807,"name":"Max","tag":"tree"}\n';

async function store(args: readonly string[]): Promise<{ url: string; env: Record<string, string> }> {
  const seed = path.join(user.dir, 'seed.ndjson');
  writeFileSync(seed, SEED);
  const serve = await serves.start([
    '--port',
    '0',
    '--memory',
    '--token',
    TOKEN,
    ...args.map((arg) => (arg === 'SEED' ? seed : arg)),
  ]);
  return { url: serve.url, env: { ...user.env, PLANTS_BASE_URL: serve.url } };
}

async function held(url: string): Promise<string> {
  return (await send(`${url}/plants`, { headers: { authorization: `Bearer ${TOKEN}` } })).text;
}

describe('plants reset', () => {
  it('with --yes: the store back to its seed; prints what it holds (NDJSON when piped), exit 0', async () => {
    const { url, env } = await store(['--seed', 'SEED', '--allow-reset']);
    expect((await postPlant(url, TOKEN, '{"id":5,"name":"Fern"}')).status).toBe(200);
    const result = await user.run(['reset', '--yes'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('{"id":2,"name":"Ivy"}\n{"id":9223372036854775807,"name":"Max","tag":"tree"}\n');
    expect(result.stderr).toBe('✓ Reset: the store holds 2 plants now\n');
    expect(await held(url)).toBe('[{"id":2,"name":"Ivy"},{"id":9223372036854775807,"name":"Max","tag":"tree"}]');
    const json = await user.run(['reset', '-y', '--json'], { env });
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(result.stdout);
  });

  it('prints every plant of a seed longer than one page', async () => {
    const seed = path.join(user.dir, 'long.ndjson');
    writeFileSync(seed, Array.from({ length: 250 }, (_, index) => `{"id":${index},"name":"p${index}"}\n`).join(''));
    const { env } = await store(['--seed', seed, '--allow-reset']);
    const result = await user.run(['reset', '--yes'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(250);
    expect(result.stderr).toBe('✓ Reset: the store holds 250 plants now\n');
  });

  it('without a seed: empties the store', async () => {
    const { url, env } = await store(['--allow-reset']);
    expect((await postPlant(url, TOKEN, '{"id":5,"name":"Fern"}')).status).toBe(200);
    const result = await user.run(['reset', '--yes'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('✓ Reset: the store holds no plants now\n');
    expect(await held(url)).toBe('[]');
  });

  it('not on a terminal and without --yes: exit 2, nothing sent, nothing changed', async () => {
    const { url, env } = await store(['--seed', 'SEED', '--allow-reset']);
    expect((await postPlant(url, TOKEN, '{"id":5,"name":"Fern"}')).status).toBe(200);
    const result = await user.run(['reset'], { env });
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)[0]).toBe(
      'plants: plants reset replaces every plant in the store: give --yes to reset without asking',
    );
    expect(result.stdout).toBe('');
    expect(await held(url)).toContain('"id":5');
  });

  it('a store started without --allow-reset refuses: exit 1 with its message, nothing changed; --json prints its Error', async () => {
    const { url, env } = await store(['--seed', 'SEED']);
    expect((await postPlant(url, TOKEN, '{"id":5,"name":"Fern"}')).status).toBe(200);
    const result = await user.run(['reset', '--yes'], { env });
    expect(result.code).toBe(1);
    expect(expectOneLineError(result.stderr)).toEqual([
      'plants: the server answered 404: reset is off on this server: start plants serve with --allow-reset to allow it',
    ]);
    const json = await user.run(['reset', '--yes', '--json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: 404,
      message: 'reset is off on this server: start plants serve with --allow-reset to allow it',
    });
    expect(await held(url)).toContain('"id":5');
  });

  it('on a terminal it asks: no leaves the store as it is (exit 0), yes resets it and shows a table', async () => {
    const { url, env } = await store(['--seed', 'SEED', '--allow-reset']);
    expect((await postPlant(url, TOKEN, '{"id":5,"name":"Fern"}')).status).toBe(200);
    const declined = runCliInTty(['reset'], env);
    await declined.waitFor('[y/N]');
    expect(declined.screen).toContain(`Reset the store at ${url} to its seed? Every plant in it is replaced. [y/N]`);
    declined.type('n\r');
    expect(await declined.exited).toBe(0);
    expect(declined.screen).toContain('Not reset.');
    expect(await held(url)).toContain('"id":5');

    const accepted = runCliInTty(['reset'], env);
    await accepted.waitFor('[y/N]');
    accepted.type('y\r');
    expect(await accepted.exited).toBe(0);
    expect(accepted.screen).toMatch(/ID\s+NAME\s+TAG/);
    expect(accepted.screen).toMatch(/9223372036854775807\s+Max\s+tree/);
    expect(accepted.screen).toContain('Reset: the store holds 2 plants now');
    expect(await held(url)).not.toContain('"id":5');
  });
});
