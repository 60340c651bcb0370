import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServeProcess } from '../helpers/serve-process.js';
import { useTempUser } from '../helpers/user.js';

// Two `plants serve` stores, each taking its own token alone: an add that lands is at the right
// store with the right token. One user with two profiles: the default one (store A) and `work` (B).
const TOKEN_A = 'profile-token-a-0123456789';
const TOKEN_B = 'profile-token-b-0123456789';
const storeA = useServeProcess(['--port', '0', '--memory', '--token', TOKEN_A]);
const storeB = useServeProcess(['--port', '0', '--memory', '--token', TOKEN_B]);
// No Secret Service here (a clean environment, no session bus): tokens go to the files.
const user = useTempUser(undefined, { token: false });

async function journal(url: string, token: string): Promise<{ method: string; path: string; status: number }[]> {
  const answer = await fetch(`${url}/_serve/journal`, { headers: { authorization: `Bearer ${token}` } });
  return ((await answer.json()) as { requests: { method: string; path: string; status: number }[] }).requests;
}

async function storedIds(url: string, token: string): Promise<number[]> {
  const answer = await fetch(`${url}/plants?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
  return ((await answer.json()) as { id: number }[]).map((plant) => plant.id).sort((a, b) => a - b);
}

describe('profiles', () => {
  it('login --profile makes the profile; without a Secret Service the token goes to a 0600 file, said on stderr', async () => {
    const first = await user.run(['login', '--base-url', storeA.url, '--with-token'], { input: TOKEN_A });
    expect(first.code).toBe(0);
    const work = await user.run(['login', '--profile', 'work', '--base-url', storeB.url, '--with-token'], {
      input: TOKEN_B,
    });
    expect(work.code).toBe(0);
    const file = path.join(user.configDir, 'profiles', 'work.json');
    expect(work.stderr).toContain(`✓ Logged in to ${storeB.url} (profile work)`);
    expect(work.stderr).toContain(`Token stored in ${file} (mode 0600): no OS keyring answers here`);
    expect(work.stderr).toContain(`Now the default store: ${storeB.url}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      tokens: { [storeB.url]: TOKEN_B },
      defaultBaseUrl: storeB.url,
    });
    // The default profile is config.json as it always was.
    expect(JSON.parse(readFileSync(path.join(user.configDir, 'config.json'), 'utf8'))).toEqual({
      tokens: { [storeA.url]: TOKEN_A },
      defaultBaseUrl: storeA.url,
    });
  });

  it('18 concurrent adds through --profile, PLANTS_PROFILE and the default land in the right store with the right token', async () => {
    const routes = [
      ...[1, 2, 3, 4, 5].map((id) => ({ id, args: ['--profile', 'work'], env: {}, store: 'B' })),
      ...[6, 7, 8, 9, 10].map((id) => ({ id, args: [], env: { PLANTS_PROFILE: 'work' }, store: 'B' })),
      ...[11, 12, 13, 14, 15].map((id) => ({ id, args: [], env: {}, store: 'A' })),
      // --profile wins over PLANTS_PROFILE.
      ...[16, 17, 18].map((id) => ({
        id,
        args: ['--profile', 'default'],
        env: { PLANTS_PROFILE: 'work' },
        store: 'A',
      })),
    ];
    const results = await Promise.all(
      routes.map((route) =>
        user.run(['add', '--id', String(route.id), '--name', `plant ${route.id}`, ...route.args], { env: route.env }),
      ),
    );
    for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
    const idsOf = (store: string) => routes.filter((route) => route.store === store).map((route) => route.id);
    expect(await storedIds(storeA.url, TOKEN_A)).toEqual(idsOf('A'));
    expect(await storedIds(storeB.url, TOKEN_B)).toEqual(idsOf('B'));
    // Each store was sent its adds alone, each taken at the first try: never a refused token.
    for (const [url, token, store] of [
      [storeA.url, TOKEN_A, 'A'],
      [storeB.url, TOKEN_B, 'B'],
    ] as const) {
      const posts = (await journal(url, token)).filter((entry) => entry.method === 'POST');
      expect(posts.map((entry) => entry.status)).toEqual(idsOf(store).map(() => 200));
    }
  });

  it('a flag or variable that sets the base URL or the token wins over the profile', async () => {
    const viaFlag = await user.run(['list', '--json', '--profile', 'work', '--base-url', storeA.url], {
      env: { PLANTS_TOKEN: TOKEN_A },
    });
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toContain('"id":11');
    const viaEnv = await user.run(['get', '1', '--json', '--profile', 'default'], {
      env: { PLANTS_BASE_URL: storeB.url, PLANTS_TOKEN: TOKEN_B },
    });
    expect(viaEnv.code).toBe(0);
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ id: 1, name: 'plant 1' });
  });

  it('status names the profile in use, human and --json', async () => {
    const human = await user.run(['status', '--profile', 'work']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Profile:       work (from --profile)');
    const json = await user.run(['status', '--json'], { env: { PLANTS_PROFILE: 'work' } });
    expect(JSON.parse(json.stdout)).toMatchObject({
      profile: 'work',
      profileSource: 'environment',
      defaultBaseUrl: storeB.url,
      origins: [{ origin: storeB.url, storedIn: path.join(user.configDir, 'profiles', 'work.json') }],
    });
    expect(JSON.parse((await user.run(['status', '--json'])).stdout)).toMatchObject({
      profile: 'default',
      profileSource: 'default',
    });
  });

  it.each([
    ['--profile', ['list', '--profile', 'hoem'], {}],
    ['PLANTS_PROFILE', ['status'], { PLANTS_PROFILE: 'hoem' }],
    ['logout', ['logout', '--profile', 'hoem'], {}],
  ])('a profile that does not exist (%s) is exit 2, naming it and those that do', async (_, args, env) => {
    const result = await user.run(args, { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('plants: no profile "hoem": the profiles are default, work\n');
    expect(result.stderr).toContain('`plants login --profile hoem` makes it.');
  });

  it("logout --profile removes that profile's token alone: its commands are then exit 4, the default still works", async () => {
    const out = await user.run(['logout', '--profile', 'work']);
    expect(out).toMatchObject({ code: 0 });
    expect(out.stderr).toBe(`✓ Logged out of ${storeB.url} (profile work)\n`);
    // The profile keeps its store, with no token for it.
    expect((await user.run(['list', '--profile', 'work'])).code).toBe(4);
    expect((await user.run(['list', '--json'])).code).toBe(0);
  });
});
