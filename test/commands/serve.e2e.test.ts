import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { binPath, projectRoot } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { type ServeProcess, stopDetachedServer, useServeProcesses } from '../helpers/serve-process.js';
import { readStoredPlants } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

/** A user of its own for each test: HOME, config and data folders (serve's plants.db in user.dataDir). */
const user = useTempUser(undefined, { scope: 'test' });
const serves = useServeProcesses();
let running: ServeProcess;

describe('plants serve', () => {
  it('README flow: serve, login with the printed command, add; the plant is in the default database', async () => {
    const env = user.env;
    running = await serves.start(['--port', '0'], env);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await running.waitForStderr('Ctrl-C stops the server');
    // Started as `node bin/run.js` in the clone (as `npm start` does), it names the script so.
    // The command to paste, then the token (on its own line) to give it on stdin.
    const lines = running.stderr.split('\n');
    const at = lines.findIndex((line) => line.includes(' login '));
    const printed = lines[at]?.split('#')[0]?.trim().split(/\s+/);
    expect(printed).toEqual(['./bin/run.js', 'login', '--base-url', running.url, '--with-token']);
    const login = await user.run(printed?.slice(1) ?? [], { env, input: `${lines[at + 1]?.trim()}\n` });
    expect(login.code).toBe(0);
    const add = await user.run(['add', '--id', '9223372036854775807', '--name', 'Fern', '--tag', 'herb', '--json'], {
      env,
    });
    expect(add.code).toBe(0);
    expect(add.stdout).toBe('{"id":9223372036854775807,"name":"Fern","tag":"herb"}\n');
    const again = await user.run(['plant', 'add', '--id', '9223372036854775807', '--name', 'Other'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('409');
    expect(await running.stop('SIGINT')).toBe(0);
    expect(readStoredPlants(path.join(user.dataDir, 'plants.db'))).toEqual([
      { id: 9223372036854775807n, name: 'Fern', tag: 'herb' },
    ]);
    expect(running.stderr).toMatch(/POST \/plants 200 \d+(\.\d+)?ms/);
    expect(running.stderr).toMatch(/POST \/plants 409 \d+(\.\d+)?ms/);
  });

  it('accepts each --token, prints none of them, and logs nothing with --quiet', async () => {
    const db = path.join(user.dir, 'own.db');
    running = await serves.start([
      '--port',
      '0',
      '--db',
      db,
      '--token',
      'first-token',
      '--token',
      'second-token',
      '--quiet',
    ]);
    for (const [id, token] of [
      ['1', 'first-token'],
      ['2', 'second-token'],
    ] as const) {
      const add = await user.run(['add', '--id', id, '--name', 'x', '--base-url', running.url], {
        env: { PLANTS_TOKEN: token },
      });
      expect(add.code).toBe(0);
    }
    const refused = await user.run(['add', '--id', '3', '--name', 'x', '--base-url', running.url], {
      env: { PLANTS_TOKEN: 'wrong-token' },
    });
    expect(refused.code).toBe(4);
    expect(await running.stop('SIGTERM')).toBe(0);
    expect(running.stdout + running.stderr).not.toMatch(/first-token|second-token/);
    expect(running.stderr).not.toContain('POST /plants');
    expect(readStoredPlants(db).map((row) => row.id)).toEqual([1n, 2n]);
  });

  it('takes PLANTS_TOKEN when no --token is given', async () => {
    running = await serves.start(['--port', '0', '--memory'], { PLANTS_TOKEN: 'env-serve-token' });
    const add = await user.run(['add', '--id', '1', '--name', 'x', '--base-url', running.url], {
      env: { PLANTS_TOKEN: 'env-serve-token' },
    });
    expect(add.code).toBe(0);
    expect(running.stderr).not.toContain('env-serve-token');
    expect(running.stderr).toContain('in memory');
  });

  it('warns that tokens travel in clear text on a non-loopback host', async () => {
    running = await serves.start(['--port', '0', '--memory', '--host', '0.0.0.0', '--token', 'abc']);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).toContain('tokens travel in clear text');
  });

  it('refuses a file that is not SQLite without touching it (exit 2)', async () => {
    const db = path.join(user.dir, 'notes.txt');
    writeFileSync(db, 'my precious notes, not a database\n'.repeat(100));
    const result = await user.run(['serve', '--port', '0', '--db', db, '--token', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(db);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(db, 'utf8')).toBe('my precious notes, not a database\n'.repeat(100));
  });

  it('refuses a port in use (exit 2), naming it, and creates no database file', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const db = path.join(user.dir, 'new.db');
    try {
      const result = await user.run(['serve', '--port', String(port), '--db', db, '--token', 'abc']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`127.0.0.1:${port}`);
      expect(result.stderr).toContain('already in use');
      expect(readdirSync(user.dir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--db', 'x.db', '--memory'], '--db and --memory cannot be used together'],
    [['--durability', 'sometimes'], '--durability must be full or normal (got "sometimes")'],
    [['--token', 'has space'], 'bearer token'],
    [['--port', '70000'], '--port must be a whole number from 0 to 65535 (got "70000")'],
    // It would change nothing on PostgreSQL: refused rather than ignored in silence.
    [
      ['--database', 'postgres://plants@127.0.0.1:9/plants', '--durability', 'normal'],
      '--durability applies to a SQLite file only; PostgreSQL commits as its server is set up to (the store is --database)\n  Leave --durability out, or set synchronous_commit on the PostgreSQL server.\n',
    ],
    [
      ['--durability', 'full', '--env', 'PLANTS_DATABASE_URL=postgres://plants@127.0.0.1:9/plants'],
      '--durability applies to a SQLite file only; PostgreSQL commits as its server is set up to (the store comes from PLANTS_DATABASE_URL or DATABASE_URL)',
    ],
  ])('refuses %j (exit 2)', async (args, message) => {
    // `--env NAME=VALUE` here is the test's own: it goes in the environment, not on the command line.
    const at = args.indexOf('--env');
    const extra = at === -1 ? {} : Object.fromEntries([(args[at + 1] ?? '').split(/=(.*)/s).slice(0, 2)]);
    const argv = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
    const result = await user.run(['serve', ...(argv.includes('--port') ? [] : ['--port', '0']), ...argv], {
      env: extra,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(existsSync(path.join(user.dataDir, 'plants.db'))).toBe(false);
  });
});

describe('a restarted local store keeps its token', () => {
  /** The token the banner printed on the line after its login command. */
  const printedToken = (stderr: string) => {
    const lines = stderr.split('\n');
    return lines[lines.findIndex((line) => line.includes(' login ')) + 1]?.trim() ?? '';
  };

  it('a login made before a restart still adds after it; the token is kept 0600 beside the file', async () => {
    const env = user.env;
    const port = String(await freePort());
    const tokenFile = path.join(user.dataDir, 'plants.db.token');
    running = await serves.start(['--port', port], env);
    await running.waitForStderr('Ctrl-C stops the server');
    const token = printedToken(running.stderr);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(running.stderr).toContain(`kept in ${tokenFile}, 0600`);
    expect(readFileSync(tokenFile, 'utf8')).toBe(`${token}\n`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const login = await user.run(['login', '--base-url', running.url, '--with-token'], { env, input: `${token}\n` });
    expect(login.code).toBe(0);
    expect((await user.run(['add', '--id', '1', '--name', 'Fern'], { env })).code).toBe(0);
    expect(await running.stop('SIGINT')).toBe(0);

    running = await serves.start(['--port', port], env);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(printedToken(running.stderr)).toBe(token);
    expect(running.stderr).toContain(`this store's token, kept in ${tokenFile} since it was made`);
    const after = await user.run(['add', '--id', '2', '--name', 'Ivy', '--json'], { env });
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).toBe('{"id":2,"name":"Ivy"}\n');
    expect(await running.stop('SIGINT')).toBe(0);

    // An explicit --token wins, and leaves the kept one as it was; the 401 says what happened.
    running = await serves.start(['--port', port, '--token', 'explicit-token-0123456789'], env);
    const refused = await user.run(['add', '--id', '3', '--name', 'Oak'], { env });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(
      [
        'plants: the server answered 401: invalid bearer token',
        `  This store may have started with a new token since the login (plants serve makes one up each start with --memory, else keeps it beside its file, as <file>.token): its banner shows the token, and \`plants login --base-url ${running.url} --with-token\` stores it.`,
        '',
      ].join('\n'),
    );
    expect(readFileSync(tokenFile, 'utf8')).toBe(`${token}\n`);
  });

  it('keeps none for --memory or a given token, and refuses a kept file that holds no token (exit 2)', async () => {
    const env = user.env;
    running = await serves.start(['--port', '0', '--memory'], env);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).toContain('a token made up for this run');
    await running.stop();
    const db = path.join(user.dir, 'own.db');
    running = await serves.start(['--port', '0', '--db', db, '--token', 'given-token-0123456789'], env);
    await running.waitForStderr('Ctrl-C stops the server');
    await running.stop();
    expect(readdirSync(user.dir).filter((name) => name.endsWith('.token'))).toEqual([]);
    expect(existsSync(path.join(user.dataDir, 'plants.db.token'))).toBe(false);

    writeFileSync(`${db}.token`, 'not a token\n');
    const bad = await user.run(['serve', '--port', '0', '--db', db], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      [
        `plants: ${db}.token holds no valid token (the one plants serve made up for this store)`,
        '  Delete it to have a new one made up (logins with the old one are then refused), or give --token.',
        '',
      ].join('\n'),
    );
  });

  it('with --detach the background server keeps it, and the banner says "Next:" for this terminal', async () => {
    const db = path.join(user.dir, 'bg.db');
    const pidFile = path.join(user.dir, 'plants.pid');
    const started = await user.run(['serve', '--port', '0', '--db', db, '--detach', '--pid-file', pidFile]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      expect(started.code).toBe(0);
      expect(started.stderr).toContain('\nNext:\n');
      expect(started.stderr).not.toContain('another terminal');
      const token = printedToken(started.stderr);
      expect(readFileSync(`${db}.token`, 'utf8')).toBe(`${token}\n`);
      expect(statSync(`${db}.token`).mode & 0o777).toBe(0o600);
    } finally {
      await stopDetachedServer(pid);
    }
  });
});

describe('plants serve --detach', () => {
  /** Runs a line of bash in the temp folder with `plants` on the PATH as the built CLI; a hang fails the test. */
  const bash = (line: string, env: Record<string, string> = {}) => {
    const bin = path.join(user.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    if (!existsSync(path.join(bin, 'plants'))) symlinkSync(binPath, path.join(bin, 'plants'));
    return spawnSync('bash', ['--norc', '--noprofile', '-c', line], {
      cwd: user.dir,
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ...user.env, ...env },
    });
  };
  const stopped = stopDetachedServer;

  it('returns from URL=$(…) once it listens; the server runs on until killed', async () => {
    const result = bash(
      'URL=$(plants serve --port 0 --memory --token tok-detach --detach --pid-file plants.pid) || exit $?; echo "url=$URL"',
    );
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    const url = /^url=(http:\/\/127\.0\.0\.1:\d+)$/m.exec(result.stdout)?.[1];
    expect(url).toBeDefined();
    const pid = Number(readFileSync(path.join(user.dir, 'plants.pid'), 'utf8'));
    expect(result.stderr).toContain(`Plant store listening on ${url}`);
    expect(result.stderr).toContain(`\`kill ${pid}\` stops it`);
    try {
      const add = await user.run(['add', '--id', '7', '--name', 'Fern', '--base-url', url ?? '', '--json'], {
        env: { PLANTS_TOKEN: 'tok-detach' },
      });
      expect(add.code).toBe(0);
      expect(add.stdout).toBe('{"id":7,"name":"Fern"}\n');
    } finally {
      await stopped(pid);
    }
  });

  it('returns from `| head -1` with the URL', async () => {
    const result = bash('plants serve --port 0 --memory --detach --pid-file plants.pid | head -1');
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    await stopped(Number(readFileSync(path.join(user.dir, 'plants.pid'), 'utf8')));
  });

  it('exits 2 with the reason when the server cannot start, and leaves nothing running', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const result = bash(`plants serve --port ${port} --db new.db --detach --pid-file plants.pid`);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`plants: cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(existsSync(path.join(user.dir, 'plants.pid'))).toBe(false);
      expect(existsSync(path.join(user.dir, 'new.db'))).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('serve --tls-cert and --tls-key that cannot be used', () => {
  const fixtures = path.join(projectRoot, 'test/server/fixtures');
  const cert = path.join(fixtures, 'test-tls-cert.pem');
  const key = path.join(fixtures, 'test-tls-key.pem');
  it.each([
    [
      'swapped',
      () => [key, cert, `--tls-cert ${key} holds a private key and --tls-key ${cert} a certificate: swap them`],
    ],
    [
      'a missing cert',
      () => {
        const none = path.join(user.dir, 'none.pem');
        return [none, key, `--tls-cert ${none}: cannot read it: no such file`];
      },
    ],
    ['a folder for a key', () => [cert, user.dir, `--tls-key ${user.dir}: cannot read it: it is a folder`]],
    [
      'a key that is no key',
      () => [cert, cert, `--tls-key ${cert} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`],
    ],
    [
      'a key of another certificate',
      () => {
        const other = path.join(user.dir, 'other-key.pem');
        const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
        writeFileSync(other, privateKey.export({ type: 'pkcs8', format: 'pem' }));
        return [
          cert,
          other,
          `--tls-cert ${cert} and --tls-key ${other} do not belong together: the key is not the certificate's private key`,
        ];
      },
    ],
  ])('%s: exit 2 naming the flag and the file, no OpenSSL codes', async (_what, files) => {
    const [certFile, keyFile, message] = files();
    const result = await user.run([
      'serve',
      '--port',
      '0',
      '--memory',
      '--token',
      'abc',
      '--tls-cert',
      certFile ?? '',
      '--tls-key',
      keyFile ?? '',
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(`plants: ${message}`);
    expect(result.stderr).not.toMatch(/error:[0-9A-F]{8}|ERR_OSSL|PEM routines/);
  });
});

describe('the serve banner', () => {
  it('warns about a token short enough to be guessed, and refuses a "Bearer " one saying why', async () => {
    running = await serves.start(['--port', '0', '--memory', '--token', 'x']);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).toContain('warning: a token shorter than 16 characters can be guessed');
    await running.stop();
    running = await serves.start(['--port', '0', '--memory', '--token', 'a-long-enough-token-0123456789']);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).not.toContain('can be guessed');
    const bearer = await user.run(['serve', '--port', '0', '--memory', '--token', 'Bearer abc']);
    expect(bearer.code).toBe(2);
    expect(bearer.stderr).toContain('the token starts with "Bearer"');
  });

  it('names the durability of a database file, and none for a store in memory', async () => {
    running = await serves.start(['--port', '0', '--memory', '--token', 'abc']);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).toContain('store: in memory (gone when the server stops)\n');
    expect(running.stderr).not.toContain('durability');
    await running.stop();
    const db = path.join(user.dir, 'own.db');
    running = await serves.start(['--port', '0', '--db', db, '--durability', 'normal', '--token', 'abc']);
    await running.waitForStderr('Ctrl-C stops the server');
    expect(running.stderr).toContain(`store: ${db}, durability: normal\n`);
  });
});
