import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, projectRoot } from '../helpers/cli.js';
import { useFixtureServer } from '../helpers/fixture-server.js';
import { expectNoSecret, reportFigures } from '../helpers/reliability.js';
import { startServeProcess, useServeProcess } from '../helpers/serve-process.js';
import { useTempUser } from '../helpers/user.js';

/**
 * Token safety: the CLI and the server are run through their paths (login, status, add one and
 * many, every kind of failure, serve over HTTP and HTTPS), and everything they print (stdout,
 * stderr, the request log, --json documents, error messages) is searched for the token. It
 * must never appear. The one designed exception: `plants serve` without --token or
 * PLANTS_TOKEN prints the token it made up once, in its banner. (Config modes and the
 * clear-text warning are covered by test/commands/login.e2e.test.ts and serve.e2e.test.ts.)
 */

const TOKEN = `tok-${randomBytes(18).toString('base64url')}`;
const WRONG = `wrong-${randomBytes(18).toString('base64url')}`;
const fixtures = path.join(projectRoot, 'test', 'server', 'fixtures');
const certPath = path.join(fixtures, 'test-tls-cert.pem');
const keyPath = path.join(fixtures, 'test-tls-key.pem');

const user = useTempUser();
const serve = useServeProcess(['--port', '0', '--db', path.join(user.dir, 'plants.db'), '--token', TOKEN]);
const silent = useFixtureServer(() => {});
/** Everything printed, by where it came from. */
const printed: Record<string, string> = {};
const record = (where: string, result: CliResult) => {
  printed[`${where}: stdout`] = result.stdout;
  printed[`${where}: stderr`] = result.stderr;
  return result;
};

beforeAll(() => serve.waitForStderr('Ctrl-C stops the server'));

const cli = (where: string, args: string[], env: Record<string, string> = {}, input?: string) =>
  user.run(args, { env, input }).then((result) => record(where, result));

describe('the token never appears in what plants prints', () => {
  // Two dozen CLI processes one after another: on a loaded 2-core machine, well past vitest's 30 s default.
  it('through login, status, adds of every outcome, bulk adds and logout', async () => {
    const url = serve.url;
    expect((await cli('login --token', ['login', '--token', TOKEN, '--base-url', url])).code).toBe(0);
    expect((await cli('login --with-token', ['login', '--with-token', '--base-url', url], {}, `${TOKEN}\n`)).code).toBe(
      0,
    );
    expect((await cli('status', ['status'])).code).toBe(0);
    expect((await cli('status --json', ['status', '--json'])).code).toBe(0);
    expect((await cli('status with PLANTS_TOKEN', ['status', '--json'], { PLANTS_TOKEN: TOKEN })).code).toBe(0);

    expect((await cli('add', ['add', '--id', '1', '--name', 'Fern'])).code).toBe(0);
    expect((await cli('add --json', ['add', '--id', '2', '--name', 'Fern', '--json'])).code).toBe(0);
    expect((await cli('add 409', ['add', '--id', '2', '--name', 'Again'])).code).toBe(1);
    expect((await cli('add 409 --json', ['add', '--id', '2', '--name', 'Again', '--json'])).code).toBe(1);
    expect((await cli('add invalid', ['add', '--id', 'x', '--name', ''])).code).toBe(2);
    expect(
      (
        await cli('add via oclif', [
          'add',
          '--id',
          '3',
          '--name',
          'Ivy',
          '--tag',
          't',
          '--timeout',
          '5',
          '--retries',
          '1',
          '--json',
          '--insecure',
        ])
      ).code,
    ).toBe(0);
    expect(
      (await cli('add with PLANTS_TOKEN', ['add', '--id', '4', '--name', 'Oak'], { PLANTS_TOKEN: TOKEN })).code,
    ).toBe(0);
    const bulk = `{"id":10,"name":"a"}\n{"id":10,"name":"dup"}\nnot json\n{"id":"11","name":"bad"}\n{"id":12,"name":"b"}\n`;
    expect((await cli('bulk add', ['add', '--file', '-'], {}, bulk)).code).toBe(1);

    // Refused: a wrong token (neither it nor the right one may be printed).
    expect(
      (await cli('add wrong token', ['add', '--id', '5', '--name', 'x', '--json'], { PLANTS_TOKEN: WRONG })).code,
    ).toBe(4);
    expect((await cli('bulk wrong token', ['add', '--file', '-'], { PLANTS_TOKEN: WRONG }, bulk)).code).toBe(4);
    // Unreachable, timed out, refused locally.
    const gone = 'http://127.0.0.1:9';
    expect(
      (
        await cli(
          'add unreachable',
          ['add', '--id', '6', '--name', 'x', '--base-url', gone, '--retries', '0', '--json'],
          { PLANTS_TOKEN: TOKEN },
        )
      ).code,
    ).toBe(3);
    expect(
      (
        await cli('add timeout', ['add', '--id', '6', '--name', 'x', '--base-url', silent.url, '--timeout', '0.3'], {
          PLANTS_TOKEN: TOKEN,
        })
      ).code,
    ).toBe(3);
    expect(
      (
        await cli(
          'bulk timeout',
          ['add', '--file', '-', '--base-url', silent.url, '--timeout', '0.3', '--retries', '0'],
          { PLANTS_TOKEN: TOKEN },
          bulk,
        )
      ).code,
    ).toBe(3);
    expect(
      (
        await cli('add clear text', ['add', '--id', '6', '--name', 'x', '--base-url', 'http://plants.example.com'], {
          PLANTS_TOKEN: TOKEN,
        })
      ).code,
    ).toBe(2);
    expect((await cli('add unknown flag', ['add', '--id', '6', '--name', 'x', '--token', TOKEN])).code).toBe(2);
    expect((await cli('login bad flag', ['login', '--token', TOKEN, '--bogus'])).code).toBe(2);
    expect((await cli('login twice', ['login', '--token', TOKEN, '--with-token'], {}, TOKEN)).code).toBe(2);

    expect((await cli('logout', ['logout', '--base-url', url])).code).toBe(0);
    expect((await cli('status after logout', ['status', '--json'])).code).toBe(4);

    await serve.waitForStderr('POST /plants 401');
    expectNoSecret(TOKEN, {
      ...printed,
      'serve stdout': serve.stdout,
      'serve stderr (banner, request log)': serve.stderr,
    });
    expectNoSecret(WRONG, { ...printed, 'serve stderr': serve.stderr });
    reportFigures('token safety', { 'cli runs': Object.keys(printed).length / 2 });
  }, 90_000);

  it.each([
    ['login --token', (bad: string) => ['login', '--token', bad], undefined],
    ['login --with-token', () => ['login', '--with-token'], (bad: string) => `${bad}\n`],
    ['serve --token', (bad: string) => ['serve', '--port', '0', '--memory', '--token', bad], undefined],
  ] as const)('%s refuses a malformed token without echoing it (exit 2)', async (_what, args, input) => {
    for (const bad of [`${TOKEN} extra`, `${TOKEN}!`, `${TOKEN}\u0007`, `é${TOKEN}`]) {
      const result = await user.run(args(bad), { input: input?.(bad) });
      expect(result.code).toBe(2);
      expectNoSecret(TOKEN, { stdout: result.stdout, stderr: result.stderr });
    }
  });

  it('the server never echoes a token it refused, in its answer or its log', async () => {
    for (const authorization of [`Bearer ${WRONG}`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `Bearer ${TOKEN} ${TOKEN}`]) {
      const answer = await request(`${serve.url}/plants`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: '{"id":99,"name":"x"}',
      });
      const text = await answer.body.text();
      expect(answer.statusCode).toBe(401);
      expectNoSecret(TOKEN, { answer: text, headers: JSON.stringify(answer.headers) });
      expectNoSecret(WRONG, { answer: text, headers: JSON.stringify(answer.headers) });
    }
    // A token in the query string is not logged either.
    await (await request(`${serve.url}/openapi.json?access_token=${TOKEN}`)).body.text();
    await (await request(`${serve.url}/nope?token=${TOKEN}`)).body.text();
    await serve.waitForStderr('GET /nope 404');
    expectNoSecret(TOKEN, { 'serve stderr': serve.stderr });
    expectNoSecret(WRONG, { 'serve stderr': serve.stderr });
  });
});

describe('plants serve with a token it made up', () => {
  const newcomer = useTempUser();
  it('prints it once, in the banner, and nowhere else however it is used', async () => {
    const own = await startServeProcess(['--port', '0', '--memory'], newcomer.env);
    try {
      await own.waitForStderr('Ctrl-C stops the server');
      // The banner's login command takes the token on stdin; the token is on the line after it.
      const lines = own.stderr.split('\n');
      const at = lines.findIndex((line) => line.includes(' login '));
      const loginLine = lines[at + 1];
      const made = loginLine?.trim() as string;
      expect(lines[at]).toContain(`login --base-url ${own.url} --with-token`);
      expect(made).toMatch(/^[A-Za-z0-9._~+/-]{16,}=*$/);
      const login = await newcomer.run(['login', '--base-url', own.url, '--with-token'], { input: `${made}\n` });
      const add = await newcomer.run(['add', '--id', '1', '--name', 'x', '--json']);
      const wrong = await newcomer.run(['add', '--id', '2', '--name', 'x'], { env: { PLANTS_TOKEN: WRONG } });
      const status = await newcomer.run(['status', '--json']);
      expect([login.code, add.code, wrong.code, status.code]).toEqual([0, 0, 4, 0]);
      await own.waitForStderr('POST /plants 401');
      const everything = [own.stdout, own.stderr, ...[login, add, wrong, status].flatMap((r) => [r.stdout, r.stderr])];
      expect(everything.join('\n').split(made).length - 1, 'times the made-up token was printed').toBe(1);
      expect(own.stdout).not.toContain(made);
      expect(loginLine).toContain(made);
    } finally {
      await own.stop('SIGKILL');
    }
  });
});

describe('plants serve over HTTPS', () => {
  const tlsUser = useTempUser(undefined, { token: TOKEN });
  it('serves HTTPS with --tls-cert and --tls-key; plants add reaches it, and a client without the CA is refused', async () => {
    const tls = await startServeProcess([
      '--port',
      '0',
      '--memory',
      '--host',
      '0.0.0.0',
      '--token',
      TOKEN,
      '--tls-cert',
      certPath,
      '--tls-key',
      keyPath,
    ]);
    try {
      expect(tls.url).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/);
      await tls.waitForStderr('Ctrl-C stops the server');
      // TLS on: no clear-text warning, even on every address.
      expect(tls.stderr).not.toContain('clear text');
      const url = tls.url.replace('0.0.0.0', '127.0.0.1');
      const agent = new Agent({ connect: { ca: readFileSync(certPath) } });
      try {
        const health = await request(`${url}/healthz`, { dispatcher: agent });
        expect(health.statusCode).toBe(200);
        expect(await health.body.text()).toBe('{"status":"ok"}');
        const added = await request(`${url}/plants`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{"id":9223372036854775807,"name":"secure"}',
        });
        expect(added.statusCode).toBe(200);
        expect(await added.body.text()).toBe('{"id":9223372036854775807,"name":"secure"}');
      } finally {
        await agent.close();
      }

      const trusted = await tlsUser.run(['add', '--id', '1', '--name', 'Fern', '--base-url', url, '--json'], {
        env: { NODE_EXTRA_CA_CERTS: certPath },
      });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stdout).toBe('{"id":1,"name":"Fern"}\n');
      const untrusted = await tlsUser.run(['add', '--id', '2', '--name', 'Fern', '--base-url', url]);
      expect(untrusted.code).toBe(3);
      expect(untrusted.stderr).toMatch(/TLS|certificate/i);
      const plain = await tlsUser.run([
        'add',
        '--id',
        '3',
        '--name',
        'Fern',
        '--base-url',
        url.replace('https', 'http'),
        '--retries',
        '0',
      ]);
      expect([1, 3]).toContain(plain.code);
      expectNoSecret(TOKEN, {
        trusted: trusted.stdout + trusted.stderr,
        untrusted: untrusted.stdout + untrusted.stderr,
        plain: plain.stdout + plain.stderr,
        'serve output': tls.stdout + tls.stderr,
      });
    } finally {
      await tls.stop('SIGKILL');
    }
  });
});
