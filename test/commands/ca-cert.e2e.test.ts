import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, runCli } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { useTempUser } from '../helpers/user.js';

// --ca-cert FILE (curl's --cacert) trusts a self-signed store: given on any store command, or kept
// for the origin by `plants login --ca-cert`. Against a real `plants serve --tls-cert`.
const fixtures = path.join(projectRoot, 'test', 'server', 'fixtures');
const cert = path.join(fixtures, 'test-tls-cert.pem');
const key = path.join(fixtures, 'test-tls-key.pem');
const TOKEN = 'ca-cert-test-token-0123456789';

let serve: ServeProcess;
const user = useTempUser();
beforeAll(async () => {
  serve = await startServeProcess(['--port', '0', '--memory', '--token', TOKEN, '--tls-cert', cert, '--tls-key', key]);
});
afterAll(async () => {
  await serve?.stop();
});

const config = () => JSON.parse(readFileSync(path.join(user.configDir, 'config.json'), 'utf8'));

describe('--ca-cert', () => {
  it('is needed: without it the self-signed store is a sentence and exit 3', async () => {
    expect(serve.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const result = await user.run(['get', '1', '--base-url', serve.url], { env: { PLANTS_TOKEN: TOKEN } });
    expect(result.code).toBe(3);
    expect(result.stderr.split('\n')[0]).toBe(
      `plants: cannot reach ${serve.url}: its TLS certificate is self-signed, and not trusted here`,
    );
    expect(result.stderr).toContain('--ca-cert FILE');
  });

  it('trusts the store for one command on every store command', async () => {
    const withToken = { ...user.env, PLANTS_TOKEN: TOKEN };
    const trust = ['--base-url', serve.url, '--ca-cert', cert];
    const add = await runCli(['add', '--id', '1', '--name', 'Fern', ...trust], { env: withToken });
    expect(add.code, add.stderr).toBe(0);
    expect((await runCli(['get', '1', '--json', ...trust], { env: withToken })).stdout).toBe(
      '{"id":1,"name":"Fern"}\n',
    );
    expect((await runCli(['list', ...trust], { env: withToken })).stdout).toBe('{"id":1,"name":"Fern"}\n');
    const status = await runCli(['status', '--json', ...trust], { env: withToken });
    expect(JSON.parse(status.stdout).store).toEqual({ answered: true, token: 'accepted' });
    const bulk = await runCli(['add', '--file', '-', ...trust], {
      env: withToken,
      input: '{"id":2,"name":"a"}\n{"id":3,"name":"b"}\n',
    });
    expect(bulk.code, bulk.stderr).toBe(0);
    expect((await runCli(['delete', '3', '--yes', ...trust], { env: withToken })).code).toBe(0);
  });

  it('is kept for the origin by login, which checks the token over it', async () => {
    const login = await user.run(['login', '--with-token', '--base-url', serve.url, '--ca-cert', cert], {
      input: TOKEN,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('the store took the token');
    expect(config().caCerts).toEqual({ [serve.url]: cert });
    const list = await user.run(['list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('"name":"Fern"');
    const status = await user.run(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `${serve.url} (default): token ********6789 (from config), TLS certificate trusted from ${cert}`,
    );
    const json = await user.run(['status', '--json']);
    expect(JSON.parse(json.stdout).origins).toEqual([
      {
        origin: serve.url,
        token: '********6789',
        tokenSource: 'config',
        isDefault: true,
        caCert: cert,
        storedIn: path.join(user.configDir, 'config.json'),
      },
    ]);
  });

  it("meets a certificate for another host name with a sentence, never OpenSSL's text", async () => {
    // The fixture names 127.0.0.1 and localhost; the same store reached as 127.0.0.2 is another host.
    const other = await startServeProcess([
      ...['--host', '127.0.0.2', '--port', '0', '--memory', '--token', TOKEN],
      ...['--tls-cert', cert, '--tls-key', key],
    ]);
    try {
      const result = await user.run(['get', '1', '--base-url', other.url, '--ca-cert', cert], {
        env: { PLANTS_TOKEN: TOKEN },
      });
      expect(result.code).toBe(3);
      // --ca-cert was given and trusted the chain: the names are what is wrong, and the hint says so.
      const port = new URL(other.url).port;
      expect(result.stderr).toBe(
        [
          `plants: cannot reach ${other.url}: its TLS certificate is for another host name`,
          `  Its certificate names 127.0.0.1, localhost, not 127.0.0.2: use one of those in the URL (https://127.0.0.1:${port}), or give the store a certificate made for 127.0.0.2.`,
          '',
        ].join('\n'),
      );
      expect(result.stderr).not.toMatch(/ERR_|error:[0-9A-F]{8}|routines|Hostname\/IP|\n\s+at /);
    } finally {
      await other.stop();
    }
  });

  it.each([
    ['a file that is not there', () => path.join(user.dir, 'missing.pem'), 'cannot be read: no such file'],
    ['a folder', () => user.dir, 'cannot be read: it is a folder'],
    ['the private key', () => key, 'is not a PEM certificate (it holds a private key: give the certificate)'],
    [
      'text that is not PEM',
      () => {
        const file = path.join(user.dir, 'junk.pem');
        writeFileSync(file, 'hello\n');
        return file;
      },
      'is not a PEM certificate',
    ],
  ])('refuses %s: exit 2 naming the flag and the file', async (_what, file, why) => {
    const name = file();
    for (const args of [
      ['get', '1'],
      ['login', '--token', TOKEN],
    ]) {
      const result = await runCli([...args, '--base-url', serve.url, '--ca-cert', name], { env: { ...user.env } });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe(`plants: --ca-cert ${name} ${why}`);
      expect(result.stderr).not.toMatch(/error:[0-9A-F]{8}|PEM routines|\n\s+at /);
    }
  });
});
