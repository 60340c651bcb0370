import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectNoSecret } from '../helpers/reliability.js';
import { useTempUser } from '../helpers/user.js';

/**
 * Regression test, fixed (found by the token sweep of token-safety.e2e.test.ts): the token given to `plants
 * login` as an argument instead of with --token (an easy slip, and what some CLIs accept) is
 * printed back on stderr. `plants login <token>` is taken for a command named `login <token>`:
 * src/hooks/command-not-found.ts prints `plants: 'login <token>' is not a plants command.` and
 * exits 127. `plants login --base-url URL <token>` reaches
 * oclif's parser, and PlantsCommand.catch (src/cli/base-command.ts) prints `plants: Unexpected
 * argument: <token>` (exit 2). A script running `plants login "$TOKEN"` writes the token into
 * its log. Expected: an error that does not repeat the argument (e.g. "login takes no
 * arguments; give the token with --with-token or --token").
 */

const TOKEN = `tok-${randomBytes(18).toString('base64url')}`;
const user = useTempUser();

describe('plants login with the token as an argument', () => {
  it.each([[['login', TOKEN]], [['login', '--base-url', 'http://127.0.0.1:4010', TOKEN]]])(
    '%j: refused, and the token is not printed',
    async (args) => {
      const result = await user.run(args);
      expect(result.code).not.toBe(0);
      expectNoSecret(TOKEN, { stdout: result.stdout, stderr: result.stderr });
    },
  );
});
