import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logIn } from '../../../src/cli/actions/log-in.js';
import type { Parsed } from '../../../src/cli/runner.js';
import { Login } from '../../../src/commands/login.js';
import { parsedFor, runInProcess, type TestStreams, testStreams } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants login in this process: the token from stdin (or typed at a terminal), checked on a real
// store on loopback and kept in a temporary config folder.

const server = useTestStore();
/** A config folder of its own for each case. */
const user = useTempUser(server, { scope: 'test', token: false });

function login(io: TestStreams, flags: Partial<Parsed<typeof Login>['flags']> = {}) {
  return runInProcess(
    (context) => logIn(parsedFor(Login, { flags: { 'with-token': true, timeout: 10, ...flags } }), context),
    { env: user.env, io },
  );
}

function storedTokens(dir: string): Record<string, string> {
  const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as {
    tokens?: Record<string, string>;
  };
  return config.tokens ?? {};
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
        `  Token stored in ${path.join(dir, 'config.json')}`,
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
});
