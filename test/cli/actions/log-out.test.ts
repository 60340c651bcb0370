import { describe, expect, it } from 'vitest';
import { logIn } from '../../../src/cli/actions/log-in.js';
import { logOut } from '../../../src/cli/actions/log-out.js';
import { Login } from '../../../src/commands/login.js';
import { Logout } from '../../../src/commands/logout.js';
import { parsedFor, runInProcess } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants logout in this process, after a login --with-token, with a temporary config folder.

const server = useTestStore();
const user = useTempUser(server, { token: false });
/** A user of no store in particular: the default one is the local store. */
const newcomer = useTempUser();

describe('plants logout, in-process', () => {
  it('forgets the token of the origin; a second logout says none was stored (exit 0 both)', async () => {
    const env = user.env;
    const origin = new URL(server.url).origin;
    const login = await runInProcess((context) => logIn(parsedFor(Login, { flags: { 'with-token': true } }), context), {
      env,
      streams: { input: server.token },
    });
    expect(login.code).toBe(0);
    const logout = () => runInProcess((context) => logOut(parsedFor(Logout), context), { env });
    expect(await logout()).toEqual({ code: 0, stdout: '', stderr: `✓ Logged out of ${origin}\n` });
    expect(await logout()).toEqual({ code: 0, stdout: '', stderr: `No token was stored for ${origin}\n` });
  });

  it('logged out of the default origin made by login --base-url, the default is the local store again', async () => {
    const env = newcomer.env;
    const login = await runInProcess(
      (context) => logIn(parsedFor(Login, { flags: { 'base-url': server.url, token: server.token } }), context),
      { env },
    );
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`  Now the default store: ${server.url}`);
    const logout = await runInProcess((context) => logOut(parsedFor(Logout), context), { env });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toMatch(
      /^✓ Logged out of .*\nThe default store is the local one again: http:\/\/127\.0\.0\.1:4010/,
    );
  });
});
