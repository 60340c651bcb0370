import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigFileError, ConfigStore } from '../../src/config/config-store.js';
import { describeStatus, logout, maskToken } from '../../src/config/session.js';
import { makeTempDir } from '../helpers/cli.js';

/** The config file as the token's place: these tests never touch an OS keyring. */
const FILE = { insecureStorage: true };

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.remove());

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('ConfigStore', () => {
  it('creates its folder 0700 and its file 0600', async () => {
    const dir = path.join(temp.dir, 'nested', 'plants');
    const store = ConfigStore.open({ dir });
    await store.setToken('http://127.0.0.1:4010', 'secret-token', FILE);
    expect(modeOf(dir)).toBe(0o700);
    expect(store.path).toBe(path.join(dir, 'config.json'));
    expect(modeOf(store.path)).toBe(0o600);
  });

  it('tightens an existing folder with looser modes, and rewrites a looser file as 0600', async () => {
    const dir = path.join(temp.dir, 'loose');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(path.join(dir, 'config.json'), '{}', { mode: 0o644 });
    chmodSync(path.join(dir, 'config.json'), 0o644);
    const store = ConfigStore.open({ dir });
    await store.setToken('http://127.0.0.1:4010', 'secret-token', FILE);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(store.path)).toBe(0o600);
  });

  it('keeps tokens per origin, with dots and colons in the key', async () => {
    const store = ConfigStore.open({ dir: temp.dir });
    await store.setToken('http://127.0.0.1:4010', 'local', FILE);
    await store.setToken('https://plants.example.com', 'remote', FILE);
    const reopened = ConfigStore.open({ dir: temp.dir });
    expect(reopened.tokenFor('http://127.0.0.1:4010')).toBe('local');
    expect(reopened.tokenFor('https://plants.example.com')).toBe('remote');
    expect(reopened.tokenFor('http://127.0.0.1:4011')).toBeUndefined();
    expect(reopened.origins()).toEqual(['http://127.0.0.1:4010', 'https://plants.example.com']);
    expect(await reopened.forget('http://127.0.0.1:4010', { clearDefault: false })).toBe(true);
    expect(await reopened.forget('http://127.0.0.1:4010', { clearDefault: false })).toBe(false);
    expect(ConfigStore.open({ dir: temp.dir }).origins()).toEqual(['https://plants.example.com']);
  });

  it('forgets a token and the default base URL together, keeping the rest in its order', async () => {
    const store = ConfigStore.open({ dir: temp.dir });
    await store.setToken('http://127.0.0.1:4010', 'local', FILE);
    await store.setToken('https://plants.example.com', 'remote', {
      ...FILE,
      defaultBaseUrl: 'https://plants.example.com/v1',
    });
    expect(await ConfigStore.open({ dir: temp.dir }).forget('https://plants.example.com', { clearDefault: true })).toBe(
      true,
    );
    expect(readFileSync(store.path, 'utf8')).toBe('{\n\t"tokens": {\n\t\t"http://127.0.0.1:4010": "local"\n\t}\n}');
    // No token, but the default still points there: the default alone is forgotten.
    await store.setDefaultBaseUrl('http://127.0.0.1:4011');
    expect(await ConfigStore.open({ dir: temp.dir }).forget('http://127.0.0.1:4011', { clearDefault: true })).toBe(
      false,
    );
    expect(ConfigStore.open({ dir: temp.dir }).defaultBaseUrl).toBeUndefined();
  });

  it('writes atomically: no temporary files left, always valid JSON', async () => {
    const store = ConfigStore.open({ dir: temp.dir });
    for (let i = 0; i < 20; i++) await store.setToken(`http://127.0.0.1:${4000 + i}`, `t${i}`, FILE);
    expect(readdirSync(temp.dir)).toEqual(['config.json']);
    expect(Object.keys(JSON.parse(readFileSync(store.path, 'utf8')).tokens)).toHaveLength(20);
  });

  it('refuses a config file that is not JSON, without overwriting it', async () => {
    writeFileSync(path.join(temp.dir, 'config.json'), '{not json');
    expect(() => ConfigStore.open({ dir: temp.dir })).toThrow(ConfigFileError);
    expect(readFileSync(path.join(temp.dir, 'config.json'), 'utf8')).toBe('{not json');
    writeFileSync(path.join(temp.dir, 'config.json'), '[1]');
    expect(() => ConfigStore.open({ dir: temp.dir })).toThrow('it does not hold a JSON object');
  });

  it('does not create the file until something is stored', async () => {
    const store = ConfigStore.open({ dir: temp.dir });
    expect(store.defaultBaseUrl).toBeUndefined();
    expect(existsSync(store.path)).toBe(false);
  });
});

describe('maskToken', () => {
  it.each([
    ['abcdefghijklmnop', '********mnop'],
    ['abcdefgh', '********gh'],
    ['abcd', '********d'],
    ['abc', '********'],
  ])('masks %s as %s (at most 4 characters, at most a quarter)', (token, masked) => {
    expect(maskToken(token)).toBe(masked);
  });
});

describe('describeStatus', () => {
  it('says where each setting comes from: flag, environment, config, default', async () => {
    const store = ConfigStore.open({ dir: temp.dir });
    expect(describeStatus(store, {}).defaultBaseUrlSource).toBe('default');
    await store.setDefaultBaseUrl('https://plants.example.com');
    await store.setToken('https://plants.example.com', 'stored-token-1234', FILE);
    const fromConfig = describeStatus(store, {});
    expect(fromConfig).toMatchObject({
      defaultBaseUrl: 'https://plants.example.com',
      defaultBaseUrlSource: 'config',
      authenticated: true,
    });
    expect(fromConfig.origins).toEqual([
      {
        origin: 'https://plants.example.com',
        token: '********1234',
        tokenSource: 'config',
        isDefault: true,
        storedIn: store.path,
      },
    ]);
    const fromEnv = describeStatus(store, { envBaseUrl: 'http://127.0.0.1:5000', envToken: 'env-token-00-abcd' });
    expect(fromEnv.defaultBaseUrlSource).toBe('environment');
    expect(fromEnv.origins).toContainEqual({
      origin: 'http://127.0.0.1:5000',
      token: '********abcd',
      tokenSource: 'environment',
      isDefault: true,
      storedIn: null,
    });
    const fromFlag = describeStatus(store, {
      flagBaseUrl: 'http://127.0.0.1:6000',
      envBaseUrl: 'http://127.0.0.1:5000',
    });
    expect(fromFlag).toMatchObject({
      defaultBaseUrlSource: 'flag',
      defaultOrigin: 'http://127.0.0.1:6000',
      authenticated: false,
    });
  });
});

describe('profiles', () => {
  it('a profile is profiles/NAME.json beside config.json, made 0600 in a 0700 folder; `default` is config.json', async () => {
    const work = ConfigStore.open({ dir: temp.dir, profile: 'work', create: true });
    await work.setToken('https://plants.example.com', 'work-token-1234', FILE);
    expect(work.path).toBe(path.join(temp.dir, 'profiles', 'work.json'));
    expect(modeOf(path.join(temp.dir, 'profiles'))).toBe(0o700);
    expect(modeOf(work.path)).toBe(0o600);
    expect(ConfigStore.open({ dir: temp.dir, profile: 'work' }).tokenFor('https://plants.example.com')).toBe(
      'work-token-1234',
    );
    const byName = ConfigStore.open({ dir: temp.dir, profile: 'default' });
    expect([byName.path, byName.profile]).toEqual([path.join(temp.dir, 'config.json'), 'default']);
    expect(byName.origins()).toEqual([]);
  });

  it('a profile that does not exist is exit 2, naming it and those that do; a bad name too', async () => {
    await ConfigStore.open({ dir: temp.dir, profile: 'work', create: true }).setDefaultBaseUrl('https://a.example');
    await ConfigStore.open({ dir: temp.dir, profile: 'home', create: true }).setDefaultBaseUrl('https://b.example');
    expect(() => ConfigStore.open({ dir: temp.dir, profile: 'wrok' })).toThrow(
      'no profile "wrok": the profiles are default, home, work',
    );
    for (const name of ['../x', '', '-a', 'a b', 'x'.repeat(65)]) {
      expect(() => ConfigStore.open({ dir: temp.dir, profile: name, create: true })).toThrow(/is not one: letters/);
    }
  });

  it('logout in a named profile keeps its default store (the default profile goes back to the local one)', async () => {
    const work = ConfigStore.open({ dir: temp.dir, profile: 'work', create: true });
    await work.setToken('https://plants.example.com', 'work-token-1234', {
      ...FILE,
      defaultBaseUrl: 'https://plants.example.com',
    });
    expect(await logout(work, new URL('https://plants.example.com'))).toEqual({
      origin: 'https://plants.example.com',
      removed: true,
    });
    expect(ConfigStore.open({ dir: temp.dir, profile: 'work' }).defaultBaseUrl).toBe('https://plants.example.com');
  });
});
