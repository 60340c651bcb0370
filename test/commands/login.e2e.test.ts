import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { reply, startFixtureServer } from '../helpers/fixture-server.js';
import { freePort } from '../helpers/ports.js';
import { startStoreServer, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

/** A user of its own for each test; `env` is what its runs get. */
const user = useTempUser(undefined, { scope: 'test' });
let env: Record<string, string>;
/**
 * A loopback URL nobody listens on, for logins to the default base URL: login tries its token on
 * the store, and 127.0.0.1:4010 may hold the `npm start` the README has people run.
 */
let home: string;
let offline: Record<string, string>;
beforeEach(async () => {
  env = user.env;
  home = `http://127.0.0.1:${await freePort()}`;
  offline = { ...env, PLANTS_BASE_URL: home };
});

const token = 'tok_9f8e7d6c5b4a3210';
const readConfig = () => JSON.parse(readFileSync(path.join(user.configDir, 'config.json'), 'utf8'));

describe('plants login', () => {
  it('stores --token for the origin of the default base URL without printing it', async () => {
    const result = await user.run(['login', '--token', token, '--offline'], { env: offline });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(token);
    expect(result.stderr).toContain(`Logged in to ${home}`);
    expect(readConfig()).toEqual({ tokens: { [home]: token } });
  });

  it('reads the token from stdin with --with-token, dropping one trailing newline', async () => {
    const result = await user.run(['login', '--with-token', '--offline'], { env: offline, input: `${token}\n` });
    expect(result.code).toBe(0);
    expect(readConfig().tokens[home]).toBe(token);
  });

  it('with --base-url keeps the token for that origin and, as the first login, makes it the default', async () => {
    const result = await user.run(
      ['login', '--with-token', '--offline', '--base-url', 'https://plants.example.com/v1/'],
      {
        env,
        input: token,
      },
    );
    expect(result.code).toBe(0);
    expect(readConfig()).toEqual({
      tokens: { 'https://plants.example.com': token },
      defaultBaseUrl: 'https://plants.example.com/v1',
    });
  });

  it.each([
    ['a space', 'has space'],
    ['a quote', 'abc"def'],
    ['an inner = sign', 'ab=cd'],
    ['nothing', ''],
  ])('refuses a token with %s, exit 2, without echoing it', async (_what, bad) => {
    const result = await user.run(['login', '--with-token'], { env, input: bad });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('token refused');
    if (bad !== '') expect(result.stderr).not.toContain(bad);
    expect(result.stdout).toBe('');
  });

  it('without a token and without a terminal, says how to give one (exit 2)', async () => {
    const result = await user.run(['login'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no token given');
    expect(result.stderr).toContain('--with-token');
  });

  it('refuses --token together with --with-token', async () => {
    const result = await user.run(['login', '--token', token, '--with-token'], { env, input: token });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain(token);
  });

  it('writes the config 0600 in a 0700 folder, tightening a looser existing folder', async () => {
    const dir = user.configDir;
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const result = await user.run(['login', '--token', token, '--offline'], { env: offline });
    expect(result.code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('uses the XDG config folder when PLANTS_CONFIG_DIR is not set', async () => {
    const xdg = path.join(user.dir, 'xdg');
    const result = await user.run(['login', '--token', token, '--offline'], {
      env: { PLANTS_CONFIG_DIR: undefined, XDG_CONFIG_HOME: xdg, PLANTS_BASE_URL: home },
    });
    expect(result.code).toBe(0);
    expect(statSync(path.join(xdg, 'plants', 'config.json')).mode & 0o777).toBe(0o600);
  });
});

describe('plants login checks the token with the store, as gh auth login does', () => {
  const store = useTestStore();

  it('stores a token the store takes, and says the store took it', async () => {
    const result = await user.run(['login', '--with-token', '--base-url', store.url], { env, input: store.token });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`✓ Logged in to ${store.url}`);
    expect(result.stderr).toContain('the store took the token');
    expect(readConfig().tokens[store.url]).toBe(store.token);
    expect(store.logLines.some((line) => line.startsWith('GET /plants 200'))).toBe(true);
  });

  it('refuses a token the store refuses (exit 4) and does not store it', async () => {
    const result = await user.run(['login', '--token', 'not-the-right-token-42', '--base-url', store.url], { env });
    expect(result.code).toBe(4);
    expect(result.stderr.split('\n')[0]).toBe(
      `plants: the store at ${store.url} refused this token (401: invalid bearer token); it was not saved`,
    );
    expect(result.stdout + result.stderr).not.toContain('not-the-right-token-42');
    expect(existsSync(path.join(user.configDir, 'config.json'))).toBe(false);
  });

  it('stores nothing when the store cannot be reached (exit 3, no ✓); --offline stores it, saying it was not checked', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const refused = await user.run(['login', '--token', token, '--base-url', base], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).not.toContain('✓');
    expect(refused.stderr).toContain(`cannot reach ${base}: connection refused; the token was not saved`);
    expect(refused.stderr).toContain('add --offline');
    expect(existsSync(path.join(user.configDir, 'config.json'))).toBe(false);
    const result = await user.run(['login', '--token', token, '--base-url', base, '--offline'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`✓ Logged in to ${base}`);
    expect(result.stderr).toContain('Token not checked: --offline; it is stored all the same.');
    expect(readConfig().tokens[base]).toBe(token);
  });

  it('refuses a plain-http URL of another machine at login (exit 2), as every command would; --insecure allows it', async () => {
    const refused = await user.run(['login', '--token', token, '--base-url', 'http://plants.invalid'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refusing to send a bearer token in clear text to http://plants.invalid');
    expect(existsSync(path.join(user.configDir, 'config.json'))).toBe(false);
    const allowed = await user.run(
      ['login', '--token', token, '--base-url', 'http://plants.invalid', '--insecure', '--offline'],
      { env },
    );
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toContain('Token not checked: --offline');
    expect(readConfig().tokens['http://plants.invalid']).toBe(token);
  });
});

describe('plants logout', () => {
  it('of the default origin puts the default back to the local store, and says so', async () => {
    await user.run(['login', '--token', 'other-token', '--offline', '--base-url', 'https://plants.example.com'], {
      env,
    });
    expect(readConfig().defaultBaseUrl).toBe('https://plants.example.com');
    const result = await user.run(['logout'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Logged out of https://plants.example.com');
    expect(result.stderr).toContain('The default store is the local one again: http://127.0.0.1:4010');
    expect(readConfig().defaultBaseUrl).toBeUndefined();
  });

  it('forgets only the token of the given origin', async () => {
    await user.run(['login', '--token', token, '--offline'], { env: offline });
    await user.run(['login', '--token', 'other-token', '--offline', '--base-url', 'https://plants.example.com'], {
      env,
    });
    const result = await user.run(['logout', '--base-url', home], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Logged out of ${home}`);
    expect(readConfig().tokens).toEqual({ 'https://plants.example.com': 'other-token' });
    const again = await user.run(['logout', '--base-url', home], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`No token was stored for ${home}`);
  });
});

describe('plants status', () => {
  const store = useTestStore();

  it('exits 4 when the store wants a token and none is stored, in human and --json mode', async () => {
    const human = await user.run(['status', '--base-url', store.url], { env });
    expect(human.code).toBe(4);
    expect(human.stdout).toContain(`${store.url} (from --base-url)`);
    expect(human.stderr).toContain(`run \`plants login --base-url ${store.url}\` or set PLANTS_TOKEN`);
    const json = await user.run(['status', '--json', '--base-url', store.url], { env });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({
      defaultBaseUrl: store.url,
      defaultBaseUrlSource: 'flag',
      authenticated: false,
      store: { answered: true, error: { error: 401 } },
    });
  });

  it('shows every origin with its token masked and the source of each setting, also when the store cannot be reached', async () => {
    await user.run(['login', '--token', token, '--offline'], { env: offline });
    await user.run(
      ['login', '--token', 'remote-token-wxyz', '--offline', '--default', '--base-url', 'https://plants.invalid'],
      { env },
    );
    const result = await user.run(['status', '--json'], { env });
    // plants.invalid never resolves: exit 3, as for any command, and the settings are still shown.
    expect(result.code).toBe(3);
    expect(result.stdout).not.toContain(token);
    expect(result.stdout).not.toContain('remote-token-wxyz');
    const status = JSON.parse(result.stdout);
    const file = path.join(user.configDir, 'config.json');
    expect(status.defaultBaseUrl).toBe('https://plants.invalid');
    expect(status.defaultBaseUrlSource).toBe('config');
    expect(status.origins).toEqual([
      {
        origin: 'https://plants.invalid',
        token: '********wxyz',
        tokenSource: 'config',
        isDefault: true,
        storedIn: file,
      },
      { origin: home, token: '********3210', tokenSource: 'config', isDefault: false, storedIn: file },
    ]);
    expect(status.store).toMatchObject({ answered: false, error: { error: 0 } });
    const human = await user.run(['status'], { env });
    expect(human.code).toBe(3);
    expect(human.stdout).toContain('https://plants.invalid (default): token ********wxyz (from config)');
    expect(human.stderr).toMatch(/^plants: cannot reach https:\/\/plants\.invalid: /);
    expect(human.stdout).not.toContain(token);
  });

  it('reports the environment and the flag as sources, flag first, and that the store takes the token', async () => {
    const fromEnv = await user.run(['status', '--json'], {
      env: { ...env, PLANTS_BASE_URL: store.url, PLANTS_TOKEN: store.token },
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).not.toContain(store.token);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({
      defaultBaseUrl: store.url,
      defaultBaseUrlSource: 'environment',
      origins: [{ origin: store.url, token: `********${store.token.slice(-4)}`, tokenSource: 'environment' }],
      store: { answered: true, token: 'accepted' },
    });
    const fromFlag = await user.run(['status', '--json', '--base-url', store.url], {
      env: { ...env, PLANTS_BASE_URL: 'http://127.0.0.1:6000', PLANTS_TOKEN: store.token },
    });
    expect(fromFlag.code).toBe(0);
    expect(JSON.parse(fromFlag.stdout)).toMatchObject({ defaultBaseUrl: store.url, defaultBaseUrlSource: 'flag' });
  });

  it('names a broken config file instead of crashing (exit 2)', async () => {
    mkdirSync(user.configDir, { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(user.configDir, 'config.json'), '{oops');
    const result = await user.run(['status'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('config.json cannot be read');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a config file left careless', () => {
  // status checks the store it shows: a real one, so that it can answer 0.
  const store = useTestStore();

  const configFile = () => path.join(user.configDir, 'config.json');
  const writeConfig = (text: string, mode = 0o600) => {
    mkdirSync(user.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), text, { mode });
    chmodSync(configFile(), mode);
  };

  it.each([
    ['{"origins":"x","defaultBaseUrl":5}', '"defaultBaseUrl" must be a string (a URL), not a number'],
    ['{"tokens":"abc"}', '"tokens" must be an object of origin to token, not a string'],
    ['{"tokens":{"http://127.0.0.1:4010":42}}', '"tokens" of "http://127.0.0.1:4010" must be a string, not a number'],
    ['{"tokens":[]}', '"tokens" must be an object of origin to token, not an array'],
  ])('refuses %s, naming the key and the file (exit 2)', async (text, problem) => {
    writeConfig(text);
    for (const args of [['status'], ['status', '--json'], ['add', '--id', '1', '--name', 'x']]) {
      const result = await user.run(args, { env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(`the config file ${configFile()} cannot be read: ${problem}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(configFile(), 'utf8')).toBe(text);
  });

  it('warns once on stderr of a file holding tokens that others can read, and writes it back 0600 at the next change', async () => {
    writeConfig(JSON.stringify({ tokens: { 'http://127.0.0.1:4010': token } }), 0o644);
    const warning = `warning: the config file ${configFile()} holds tokens and other users can open it (mode 0644)`;

    const status = await user.run(['status', '--base-url', store.url], { env: { ...env, PLANTS_TOKEN: store.token } });
    expect(status.code).toBe(0);
    expect(status.stderr.split(warning)).toHaveLength(2);
    expect(status.stdout).not.toContain('warning');
    expect(status.stdout + status.stderr).not.toContain(token);
    expect(statSync(configFile()).mode & 0o777).toBe(0o644);

    const login = await user.run(
      ['login', '--base-url', 'https://plants.example.com', '--token', `${token}x`, '--offline'],
      {
        env,
      },
    );
    expect(login.code).toBe(0);
    expect(login.stderr.split(warning)).toHaveLength(2);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);

    const after = await user.run(['status'], { env });
    expect(after.stderr).not.toContain('warning');
  });

  it('says nothing of a readable file without tokens', async () => {
    writeConfig('{"defaultBaseUrl":"http://127.0.0.1:4011"}', 0o644);
    const status = await user.run(['status'], { env });
    expect(status.stderr).not.toContain('warning');
  });
});

describe('a token typed wrong', () => {
  it.each([
    [' sekrit9 ', 'the token has white space around it'],
    ['Bearer sekrit9', 'the token starts with "Bearer": give the token alone'],
    ['', 'the token is empty'],
    ['   ', 'the token is only white space'],
    ['sek rit9', 'the token has white space in it'],
  ])('%j is refused with a message that says which (exit 2), never repeating it', async (typed, reason) => {
    const result = await user.run(['login', '--token', typed], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`token refused: ${reason}`);
    expect(result.stderr).not.toMatch(/sek|rit9/);
  });
});

describe('plants status against a store with POST /plants alone, with no token, with a refused one', () => {
  it.each([404, 405])(
    'a store answering %i to GET /plants: the token not checked, said plainly, exit 0 (as login)',
    async (status) => {
      const only = await startFixtureServer(reply(status, `{"error":${status},"message":"no"}`));
      try {
        const withToken = { ...env, PLANTS_BASE_URL: only.url, PLANTS_TOKEN: token };
        const human = await user.run(['status'], { env: withToken });
        expect(human.code, human.stderr).toBe(0);
        expect(human.stdout).toContain('the token was not checked');
        expect(human.stderr).toBe('');
        const json = await user.run(['status', '--json'], { env: withToken });
        expect(json.code, json.stderr).toBe(0);
        expect(JSON.parse(json.stdout).store).toEqual({ answered: true, token: 'not checked' });
        const login = await user.run(['login', '--token', token, '--base-url', only.url], { env });
        expect(login.code, login.stderr).toBe(0);
        expect(login.stderr).toContain('Token not checked: the store does not list plants');
      } finally {
        await only.close();
      }
    },
  );

  it('exits 4 with no token whether or not a store listens there', async () => {
    const human = await user.run(['status'], { env: offline });
    expect(human.code, human.stderr).toBe(4);
    expect(human.stderr).toContain(`No token for ${home}`);
    const json = await user.run(['status', '--json'], { env: offline });
    expect(json.code, json.stderr).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ authenticated: false, store: { answered: false } });
  });

  it('never marks with a green ✓ a token the store has just refused', async () => {
    const store = await startStoreServer();
    try {
      const result = await user.run(['status'], {
        env: { ...env, PLANTS_BASE_URL: store.url, PLANTS_TOKEN: 'not-the-token-0123' },
      });
      expect(result.code).toBe(4);
      const line = result.stdout.split('\n').find((text) => text.includes(store.url) && text.includes('token'));
      expect(line).toMatch(/^✗ .*refused by the store/);
    } finally {
      await store.close();
    }
  });
});
