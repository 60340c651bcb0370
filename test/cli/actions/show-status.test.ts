import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logIn } from '../../../src/cli/actions/log-in.js';
import { showStatus } from '../../../src/cli/actions/show-status.js';
import { Login } from '../../../src/commands/login.js';
import { Status } from '../../../src/commands/status.js';
import { parsedFor, runInProcess } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants status in this process: the settings, the stored token, and the check on a real store.

const server = useTestStore();
/** A config folder of its own for each case, and no PLANTS_TOKEN. */
const user = useTempUser(server, { scope: 'test', token: false });

function status(env: Record<string, string>, json = false) {
  return runInProcess((context) => showStatus(parsedFor(Status, { flags: { json } }), context), {
    env,
    json,
  });
}

describe('plants status, in-process', () => {
  it('without a token: exit 4, and it says how to log in', async () => {
    const env = user.env;
    const origin = new URL(server.url).origin;
    const result = await status(env);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe(
      [
        `Default store: ${origin} (from environment)`,
        'Profile:       default (from default)',
        `Config file:   ${path.join(user.configDir, 'config.json')}`,
        '',
        `✗ ${origin} (default): no token`,
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(
      [
        'plants: the server answered 401: missing bearer token: send Authorization: Bearer <token>',
        `  No token is stored for ${origin}: run \`plants login --base-url ${origin}\` or set PLANTS_TOKEN.`,
        '',
      ].join('\n'),
    );
    const json = await status(env, true);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ authenticated: false });
  });

  it('after login: the store answers and takes the token, exit 0; --json is one document', async () => {
    const env = user.env;
    const login = await runInProcess((context) => logIn(parsedFor(Login, { flags: { 'with-token': true } }), context), {
      env,
      streams: { input: `${server.token}\n` },
    });
    expect(login.code).toBe(0);
    const human = await status(env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('✓ The store answers (GET /plants)\n');
    expect(human.stdout).not.toContain(server.token);
    expect(human.stderr).toBe('');
    const json = await status(env, true);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      authenticated: true,
      store: { answered: true, token: 'accepted' },
    });
  });

  it('a token the store refuses: the failure reported as every command reports it, exit 4', async () => {
    const env = { ...user.env, PLANTS_TOKEN: 'refused-token-0123456789abcdef' };
    const result = await status(env);
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('token ********cdef (from PLANTS_TOKEN), refused by the store\n');
    expect(result.stderr).toMatch(
      /^plants: the server answered 401: invalid bearer token\n {2}The token sent was PLANTS_TOKEN's/,
    );
    const json = await status(env, true);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ store: { answered: true, error: { error: 401 } } });
  });
});
