import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logIn } from '../../../src/cli/actions/log-in.js';
import type { Parsed } from '../../../src/cli/base-command.js';
import { Login } from '../../../src/commands/login.js';
import { parsedFor, runInProcess, type TestStreams, testStreams } from '../../helpers/in-process.js';
import { freePort } from '../../helpers/ports.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants login in this process: the token from stdin (or typed at a terminal), checked on a real
// store on loopback and kept in a temporary config folder.

const server = useTestStore();
const other = useTestStore();
/** A config folder of its own for each case. */
const user = useTempUser(server, { scope: 'test', token: false });

function login(io: TestStreams, flags: Partial<Parsed<typeof Login>['flags']> = {}) {
  return runInProcess(
    (context) => logIn(parsedFor(Login, { flags: { 'with-token': true, timeout: 10, ...flags } }), context),
    { env: user.env, io },
  );
}

function storedConfig(dir: string): { tokens?: Record<string, string>; defaultBaseUrl?: string } {
  return JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
}

function storedTokens(dir: string): Record<string, string> {
  return storedConfig(dir).tokens ?? {};
}

describe('plants login, in-process', () => {
  it('--with-token reads the token from stdin (one trailing newline dropped), checks it and stores it', async () => {
    const dir = user.configDir;
    const result = await login(testStreams({ input: `${server.token}\n` }));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        `✓ Logged in to ${new URL(server.url).origin}`,
        '  Token checked: the store took the token (GET /plants).',
        `  Token stored in ${path.join(dir, 'config.json')} (mode 0600): no OS keyring answers here (on Linux: no Secret Service)`,
        // PLANTS_BASE_URL chose the store: the config's default is left alone.
        '  PLANTS_BASE_URL chose this store; without it, the default store is http://127.0.0.1:4010.',
        '',
      ].join('\n'),
    );
    expect(Object.values(storedTokens(dir))).toEqual([server.token]);
  });

  it('a token the store refuses is not stored: exit 4', async () => {
    const dir = user.configDir;
    const result = await login(testStreams({ input: 'wrong-token-0123456789abcdef\n' }));
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^plants: the store at .* refused this token \(401: .*\); it was not saved\n/);
    expect(result.stderr).not.toContain('wrong-token');
    expect(() => storedTokens(dir)).toThrow();
  });

  it('an empty stdin is no token: exit 2, nothing stored', async () => {
    const dir = user.configDir;
    const result = await login(testStreams({ input: '' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^plants: token refused: /);
    expect(() => storedTokens(dir)).toThrow();
  });

  it('on a terminal the token is typed at a prompt that shows only stars', async () => {
    const dir = user.configDir;
    const io = testStreams({ stdinIsTerminal: true, stderrIsTerminal: true });
    io.stdin.write(`${server.token}\r`);
    const result = await login(io, { 'with-token': false });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Paste your token: ${'*'.repeat(server.token.length)}\n`);
    expect(result.stderr).not.toContain(server.token);
    expect(Object.values(storedTokens(dir))).toEqual([server.token]);
  });

  it('neither --token, --with-token nor a terminal: exit 2, stdin not read', async () => {
    const io = testStreams({ input: `${server.token}\n` });
    const result = await login(io, { 'with-token': false });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^plants: no token given\n/);
    expect(io.stdin.readableLength).toBeGreaterThan(0);
  });

  it('a second store logged in to does not take over the default, and says which is; --default makes it so', async () => {
    const dir = user.configDir;
    // The first login to a --base-url makes it the default.
    const first = await login(testStreams({ input: server.token }), { 'base-url': server.url });
    expect(first.stderr).toContain(`  Now the default store: ${server.url}\n`);
    const second = await login(testStreams({ input: other.token }), { 'base-url': other.url });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      `  The default store is still ${server.url}: give --base-url ${other.url} to use this one, or \`plants login --base-url ${other.url} --default\` to make it the default.\n`,
    );
    expect(storedConfig(dir).defaultBaseUrl).toBe(server.url);
    // --default alone, with a token stored for the store: a switch, as gh auth switch.
    const switched = await login(testStreams(), { 'base-url': other.url, 'with-token': false, default: true });
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stderr).toContain(`  Now the default store: ${other.url}\n`);
    expect(storedConfig(dir)).toMatchObject({
      defaultBaseUrl: other.url,
      tokens: { [new URL(other.url).origin]: other.token },
    });
    // A switch to a store that cannot be reached changes nothing.
    const down = `http://127.0.0.1:${await freePort()}`;
    expect((await login(testStreams({ input: other.token }), { 'base-url': down, offline: true })).code).toBe(0);
    const away = await login(testStreams(), { 'base-url': down, 'with-token': false, default: true });
    expect([away.code, away.stderr.split('\n')[0]]).toEqual([
      3,
      `plants: cannot reach ${down}: connection refused; the default store is unchanged`,
    ]);
    expect(storedConfig(dir).defaultBaseUrl).toBe(other.url);
    const again = await login(testStreams({ input: other.token }), { 'base-url': other.url });
    expect(again.stderr).toContain(`  The default store: ${other.url} (this one)\n`);
  });

  it('a URL that cannot work stores nothing and keeps the default: no ✓, the exit code any command gets; --offline stores it', async () => {
    const dir = user.configDir;
    expect((await login(testStreams({ input: server.token }), { 'base-url': server.url })).code).toBe(0);
    const tls = server.url.replace('http:', 'https:');
    const wrong = await login(testStreams({ input: server.token }), { 'base-url': tls, default: true });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).not.toContain('✓');
    expect(wrong.stderr).toBe(
      [
        `plants: cannot reach ${tls}: the server does not speak TLS on this port; the token was not saved`,
        `  If it is a plain-HTTP store, try ${server.url}`,
        '  To store it all the same, for a store that is down, add --offline.',
        '',
      ].join('\n'),
    );
    expect(storedConfig(dir)).toEqual({
      defaultBaseUrl: server.url,
      tokens: { [new URL(server.url).origin]: server.token },
    });
    const down = `http://127.0.0.1:${await freePort()}`;
    const refused = await login(testStreams({ input: server.token }), { 'base-url': down });
    expect([refused.code, refused.stderr.split('\n')[0]]).toEqual([
      3,
      `plants: cannot reach ${down}: connection refused; the token was not saved`,
    ]);
    const offline = await login(testStreams({ input: server.token }), { 'base-url': down, offline: true });
    expect(offline.code).toBe(0);
    expect(offline.stderr).toContain('  Token not checked: --offline; it is stored all the same.\n');
    expect(storedConfig(dir)).toMatchObject({ defaultBaseUrl: server.url, tokens: { [down]: server.token } });
  });
});
