import { describe, expect, it } from 'vitest';
import { TEST_TOKEN, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// Hints that point the right way (issue 28): a mistake the user made is named as that mistake,
// with what to type instead, whichever command met it.

const store = useTestStore();
// No base URL: each case gives its own.
const user = useTempUser(undefined, { token: TEST_TOKEN, env: { NO_COLOR: '1' } });

describe('a base URL ending in /plants', () => {
  it.each([
    [
      ['add', '--id', '1', '--name', 'Fern'],
      'the server answered 405: POST is not allowed on /plants/plants; use GET or DELETE',
    ],
    [['list'], 'the server answered 400: id: must be a whole number'],
    [['get', '1'], 'the server answered 404: no such path: /plants/plants/1'],
  ])('%j: says to drop /plants', async (args, message) => {
    const result = await user.run([...args, '--base-url', `${store.url}/plants`]);
    expect(result.code).toBe(1);
    const [first, ...hints] = result.stderr.trimEnd().split('\n');
    expect(first?.startsWith(`plants: ${message}`), result.stderr).toBe(true);
    expect(hints).toEqual([
      `  The base URL ends in /plants, which plants adds itself (this asked for /plants/plants…): drop it, and use ${store.url}`,
    ]);
  });

  it('gives no such hint when the base URL does not end in /plants', async () => {
    const result = await user.run(['get', '1', '--base-url', store.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('plants: the server answered 404: no plant with id 1\n');
  });
});

describe('a bad PLANTS_BASE_URL', () => {
  it('is named as the environment variable it is, with what to do', async () => {
    const result = await user.run(['get', '1'], { env: { PLANTS_BASE_URL: 'ftp://plants.example' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        'plants: PLANTS_BASE_URL: invalid base URL "ftp://plants.example": the scheme must be http or https',
        '  PLANTS_BASE_URL (an environment variable) chooses the store of every command: set it to a URL such as http://127.0.0.1:4010, or unset it.',
        '',
      ].join('\n'),
    );
  });

  it('--base-url wins over it, and its own bad value is named as the flag', async () => {
    const result = await user.run(['get', '1', '--base-url', 'ftp://x'], {
      env: { PLANTS_BASE_URL: 'ftp://plants.example' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('plants: invalid base URL "ftp://x": the scheme must be http or https\n');
  });
});

describe('a printed plants command line', () => {
  const loggedOut = useTempUser(undefined, { token: false, env: { NO_COLOR: '1' } });

  /** The command lines a hint prints, in backquotes, as words (these need no shell quoting). */
  const commandLines = (stderr: string) =>
    [...stderr.matchAll(/`(plants [^`]+)`/g)].map((match) => (match[1] as string).split(' ').slice(1));

  it('a refused token under --profile: the login line printed logs that profile in, and the command then works', async () => {
    const stale = await loggedOut.run(
      ['login', '--profile', 'b', '--base-url', store.url, '--offline', '--with-token'],
      { input: 'not-the-token' },
    );
    expect(stale.code, stale.stderr).toBe(0);
    const refused = await loggedOut.run(['list', '--profile', 'b']);
    expect(refused.code).toBe(4);
    const [login, ...others] = commandLines(refused.stderr);
    expect(others).toEqual([]);
    expect(login).toEqual(['login', '--base-url', store.url, '--profile', 'b', '--with-token']);
    const followed = await loggedOut.run(login as string[], { input: TEST_TOKEN });
    expect(followed.code, followed.stderr).toBe(0);
    expect((await loggedOut.run(['list', '--profile', 'b'])).code).toBe(0);
    // The default profile was left alone.
    expect((await loggedOut.run(['list', '--base-url', store.url])).code).toBe(4);
  });
});
