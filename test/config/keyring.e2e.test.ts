import { once } from 'node:events';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, type RunCliOptions, runCli, spawnCli } from '../helpers/cli.js';
import { secretServiceTestsEnabled, useSecretService } from '../helpers/secret-service.js';
import { useServeProcess } from '../helpers/serve-process.js';

const TOKEN_A = 'keyring-token-a-0123456789';
const TOKEN_B = 'keyring-token-b-0123456789';

/** Every file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe.runIf(secretServiceTestsEnabled())('tokens in a real Secret Service (GNOME Keyring)', () => {
  const keyring = useSecretService();
  const storeA = useServeProcess(['--port', '0', '--memory', '--token', TOKEN_A]);
  const storeB = useServeProcess(['--port', '0', '--memory', '--token', TOKEN_B]);
  // The keyring's user: its HOME, the config in HOME/.config/plants, the session bus.
  const run = (args: readonly string[], options: RunCliOptions = {}) =>
    runCli(args, {
      ...options,
      env: { ...keyring.env, XDG_CONFIG_HOME: path.join(keyring.home, '.config'), ...options.env },
    });
  const configFile = () => path.join(keyring.home, '.config', 'plants', 'config.json');

  it('login keeps the token in the keyring and no file under HOME holds it, plain or base64', async () => {
    const a = await run(['login', '--base-url', storeA.url, '--with-token'], { input: TOKEN_A });
    expect(a.code).toBe(0);
    expect(a.stderr).toContain('  Token stored in the OS keyring\n');
    const b = await run(['login', '--profile', 'work', '--base-url', storeB.url, '--with-token'], { input: TOKEN_B });
    expect(b.code).toBe(0);
    expect(b.stderr).toContain('  Token stored in the OS keyring\n');
    // The keyring holds them, under the accounts the config names.
    const account = JSON.parse(readFileSync(configFile(), 'utf8')).keyring[storeA.url];
    expect(await keyring.lookup(account)).toBe(TOKEN_A);
    const files = filesUnder(keyring.home);
    expect(files).toContain(configFile());
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      for (const token of [TOKEN_A, TOKEN_B]) {
        for (const encoded of [
          token,
          Buffer.from(token).toString('base64'),
          Buffer.from(token).toString('base64url'),
        ]) {
          expect(text.includes(encoded), `${file} holds ${encoded}`).toBe(false);
        }
      }
    }
  });

  it('a new process reads the token from the keyring: list works, status --json says keyring', async () => {
    const list = await run(['add', '--id', '7', '--name', 'Fern']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(await run(['list', '--json'])).toMatchObject({ code: 0, stdout: '{"id":7,"name":"Fern"}\n' });
    expect(await run(['list', '--json', '--profile', 'work'])).toMatchObject({ code: 0, stdout: '' });
    const status = await run(['status', '--json', '--profile', 'work']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile: 'work',
      origins: [{ origin: storeB.url, storedIn: 'keyring', tokenSource: 'config', isDefault: true }],
    });
    expect((await run(['status'])).stdout).toContain('(from the OS keyring)');
  });

  it('logout --profile work removes its token from the keyring: that profile is then exit 4, the default still works', async () => {
    const account = JSON.parse(
      readFileSync(path.join(keyring.home, '.config', 'plants', 'profiles', 'work.json'), 'utf8'),
    ).keyring[storeB.url];
    const out = await run(['logout', '--profile', 'work']);
    expect(out.code).toBe(0);
    expect(await keyring.lookup(account)).toBeUndefined();
    const work = await run(['list', '--profile', 'work']);
    expect(work.code).toBe(4);
    expect((await run(['list', '--json'])).code).toBe(0);
  });

  it('--insecure-storage chooses the 0600 file where a keyring answers', async () => {
    const lab = await run(
      ['login', '--profile', 'lab', '--base-url', storeB.url, '--insecure-storage', '--with-token'],
      {
        input: TOKEN_B,
      },
    );
    const file = path.join(keyring.home, '.config', 'plants', 'profiles', 'lab.json');
    expect(lab.code).toBe(0);
    expect(lab.stderr).toContain(`  Token stored in ${file} (mode 0600): --insecure-storage chose the file\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).tokens).toEqual({ [storeB.url]: TOKEN_B });
    const status = JSON.parse((await run(['status', '--json', '--profile', 'lab'])).stdout);
    expect(status.origins[0].storedIn).toBe(file);
  });

  // Last: the keyring is gone for the rest of the file.
  it('a keyring that stops answering is a clear message and exit 4, never a stack trace', async () => {
    await keyring.stopKeyring();
    for (const args of [['list'], ['status'], ['logout']]) {
      const result = await run(args);
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(/^plants: the OS keyring did not answer when (reading|removing) the token of /);
      expect(result.stderr).toContain('Unlock the keyring');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    // A session bus with no Secret Service on it is no keyring: a login then goes to the file.
    const later = await run(['login', '--profile', 'later', '--offline', '--token', TOKEN_A]);
    expect(later.code).toBe(0);
    expect(later.stderr).toContain('(mode 0600): no OS keyring answers here (on Linux: no Secret Service)\n');
  });
});

describe('the keyring binding is loaded only by commands that read or write a token', () => {
  // A preloaded probe reads require.cache as the process exits: the binding is CommonJS.
  const temp = makeTempDir();
  afterAll(() => temp.remove());
  const probe = path.join(temp.dir, 'probe.cjs');
  writeFileSync(
    probe,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_REPORT,
      String(Object.keys(require.cache).some((file) => file.includes('@napi-rs')))));\n`,
  );
  const env = (name: string) => ({
    PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'),
    PROBE_REPORT: path.join(temp.dir, `${name}.txt`),
  });
  const loaded = (name: string) => readFileSync(path.join(temp.dir, `${name}.txt`), 'utf8') === 'true';

  it.each([
    ['version', ['--version'], false],
    ['help', ['--help'], false],
    ['list', ['list', '--base-url', 'http://127.0.0.1:9', '--token', 'probe-token-0123'], false],
    ['status', ['status', '--base-url', 'http://127.0.0.1:9'], false],
    ['login', ['login', '--offline', '--token', 'probe-token-0123'], true],
  ])('%s: %j', async (name, args, expected) => {
    await runCli(args, { env: env(name), nodeArgs: ['--require', probe] });
    expect(loaded(name)).toBe(expected);
  });

  it('serve', async () => {
    const serve = spawnCli(['serve', '--port', '0', '--memory', '--token', 'probe-token-0123'], {
      env: env('serve'),
      nodeArgs: ['--require', probe],
    });
    while (!serve.stdout.includes('http://')) await once(serve.child.stdout, 'data');
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    expect(loaded('serve')).toBe(false);
  });
});
