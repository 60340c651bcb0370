import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogInOptions, logIn } from '../../../src/cli/actions/log-in.js';
import { makeTempDir } from '../../helpers/cli.js';
import { runInProcess, type TestStreams, testStreams } from '../../helpers/in-process.js';
import { type StoreServer, startStoreServer } from '../../helpers/store-server.js';

// plants login in this process: the token from stdin (or typed at a terminal), checked on a real
// store on loopback and kept in a temporary config folder.

const temp = makeTempDir('plants-login-action-');
let server: StoreServer;
beforeAll(async () => {
  server = await startStoreServer();
});
afterAll(async () => {
  await server.close();
  temp.remove();
});

let folders = 0;
/** A config folder of its own for each case. */
function configDir(): string {
  return path.join(temp.dir, `config-${++folders}`);
}

function login(dir: string, io: TestStreams, flags: Partial<LogInOptions> = {}) {
  return runInProcess(
    ({ factory, output }) =>
      logIn(
        { flagBaseUrl: undefined, token: undefined, withToken: true, timeoutSeconds: 10, ...flags },
        factory,
        output,
      ),
    { env: { PLANTS_CONFIG_DIR: dir, PLANTS_BASE_URL: server.url }, io },
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
    const dir = configDir();
    const result = await login(dir, testStreams({ input: `${server.token}\n` }));
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
    const dir = configDir();
    const result = await login(dir, testStreams({ input: 'wrong-token-0123456789abcdef\n' }));
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^plants: the store at .* refused this token \(401: .*\); it was not saved\n/);
    expect(result.stderr).not.toContain('wrong-token');
    expect(() => storedTokens(dir)).toThrow();
  });

  it('an empty stdin is no token: exit 2, nothing stored', async () => {
    const dir = configDir();
    const result = await login(dir, testStreams({ input: '' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^plants: token refused: /);
    expect(() => storedTokens(dir)).toThrow();
  });

  it('on a terminal the token is typed at a prompt that shows only stars', async () => {
    const dir = configDir();
    const io = testStreams({ stdinIsTerminal: true, stderrIsTerminal: true });
    io.stdin.write(`${server.token}\r`);
    const result = await login(dir, io, { withToken: false });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Paste your token: ${'*'.repeat(server.token.length)}\n`);
    expect(result.stderr).not.toContain(server.token);
    expect(Object.values(storedTokens(dir))).toEqual([server.token]);
  });

  it('neither --token, --with-token nor a terminal: exit 2, stdin not read', async () => {
    const dir = configDir();
    const io = testStreams({ input: `${server.token}\n` });
    const result = await login(dir, io, { withToken: false });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^plants: no token given\n/);
    expect(io.stdin.readableLength).toBeGreaterThan(0);
  });
});
