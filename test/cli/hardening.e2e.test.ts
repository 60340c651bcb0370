import { closeSync, existsSync, mkdirSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { expectNoSecret, expectOneLineError } from '../helpers/reliability.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { readStoredPlants, TEST_TOKEN, useTestStore } from '../helpers/store-server.js';
import { makeUnwritable } from '../helpers/unwritable.js';
import { useTempUser } from '../helpers/user.js';

/** Issue 17, items 11-16: the CLI never misreports what happened, and never shows a token. */

const store = useTestStore();
// No base URL: each case gives its own.
const user = useTempUser(undefined, { scope: 'test', token: TEST_TOKEN, env: { NO_COLOR: '1' } });

function listenRaw(onSocket: (socket: Socket) => void): Promise<{ url: string; server: NetServer }> {
  const server = createNetServer((socket) => {
    socket.on('error', () => {});
    onSocket(socket);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server });
    }),
  );
}

const closeRaw = (server: NetServer) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('exit codes stay true in pipelines (17.11)', () => {
  it('stops and exits 141 when stdout is closed early (`add --file big | head -1`)', async () => {
    const count = 20_000;
    const input = Array.from({ length: count }, (_, i) => `{"id":${1_000_000 + i},"name":"p${i}"}`).join('\n');
    const running = user.spawn(['add', '--file', '-', '--base-url', store.url, '--concurrency', '4']);
    running.child.stdin.end(`${input}\n`);
    // Like `head -1`: read one line, then close the pipe.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (running.stdout.includes('\n')) {
          running.child.stdout.off('data', check);
          resolve();
        }
      };
      running.child.stdout.on('data', check);
    });
    running.child.stdout.destroy();
    const result = await running.exited;
    expect(result.code, result.stderr).toBe(141);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(readStoredPlants(store.dbPath).filter((plant) => plant.id >= 1_000_000n).length).toBeLessThan(count);
  });

  it.each([
    ['list', ['list']],
    ['add --json', ['add', '--id', '77', '--name', 'Full', '--json']],
  ])('`plants %s > /dev/full`: one line and exit 74', async (_name, args) => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = await user.run([...args, '--base-url', store.url], { stdoutFd: full });
      expect(result.code, result.stderr).toBe(74);
      const [line, ...rest] = expectOneLineError(result.stderr);
      expect(line).toBe('plants: cannot write to stdout: no space left on device');
      expect(rest).toEqual([]);
    } finally {
      closeSync(full);
    }
  });
});

describe('--timeout bounds the whole answer (17.12)', () => {
  let drip: { url: string; server: NetServer };
  beforeAll(async () => {
    // Headers at once, then the body one byte every half second: 20 s in all.
    const body = '{"name":"Fern","tag":"a long herb tag"}';
    drip = await listenRaw((socket) => {
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`);
        let sent = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || sent >= body.length) return clearInterval(timer);
          socket.write(body[sent++] ?? '');
        }, 500);
        socket.on('close', () => clearInterval(timer));
      });
    });
  });
  afterAll(() => closeRaw(drip.server));

  it('a body dripping a byte at a time ends at --timeout with exit 3', async () => {
    const result = await user.run(['add', '--id', '1', '--name', 'Fern', '--timeout', '2', '--base-url', drip.url], {
      timeoutMs: 40_000,
    });
    expect(result.code, result.stderr).toBe(3);
    // Sent, and the answer never came whole (nor one to reading it back): it may have been added.
    expect(expectOneLineError(result.stderr)[0]).toBe(
      `plants: sent, no answer: plant 1 may or may not have been added (no answer from ${drip.url} within 2 s)`,
    );
  });
});

describe('paging ends (17.13)', () => {
  it('a next link that does not move forward stops `list --all` with exit 1', async () => {
    const server = await startFixtureServer((request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        link: `<${request.url.startsWith('/plants?after=1') ? '/plants?after=0' : '/plants?after=1'}>; rel="next"`,
      });
      response.end('[{"id":1,"name":"a"},{"id":2,"name":"b"}]');
    });
    try {
      const result = await user.run(['list', '--all', '--base-url', server.url], { timeoutMs: 15_000 });
      expect(result.code, result.stderr).toBe(1);
      expect(expectOneLineError(result.stderr)[0]).toMatch(
        /^plants: the server's next page does not move forward \(it repeats ids up to 2\); stopped after 1 page$/,
      );
      expect(result.stdout.trim().split('\n')).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe('the token never crosses a proxy in clear text (17.14)', () => {
  it('a loopback store is reached directly, whatever HTTP_PROXY says', async () => {
    const seen: Buffer[] = [];
    // A working CONNECT proxy that records every byte it is sent.
    const proxy = await listenRaw((socket) => {
      socket.once('data', (first) => {
        seen.push(first);
        const target = /^CONNECT ([^:]+):(\d+)/.exec(first.toString('latin1'));
        if (target === null) return socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        const upstream = connect(Number(target[2]), target[1] ?? '127.0.0.1', () => {
          socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          socket.on('data', (chunk: Buffer) => seen.push(chunk));
          socket.pipe(upstream).pipe(socket);
        });
        upstream.on('error', () => socket.destroy());
      });
    });
    try {
      const result = await user.run(['add', '--id', '1401', '--name', 'Direct', '--base-url', store.url], {
        env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url },
      });
      expect(result.code, result.stderr).toBe(0);
      expectNoSecret(store.token, { proxy: Buffer.concat(seen).toString('latin1') });
      expect(seen).toEqual([]);
    } finally {
      await closeRaw(proxy.server);
    }
  });
});

describe('the token is never printed (17.15)', () => {
  const secret = 'Secret_Tok3n_abcdefgh';

  it.each([
    ['DEBUG=* login --token T', ['login', '--token', secret], { DEBUG: '*' }],
    // oclif's path (the fast route takes no unusual command line): its debug output shows argv.
    ['DEBUG=* login --token T --with-token', ['login', '--token', secret, '--with-token'], { DEBUG: '*' }],
    ['login --tokne=T', ['login', `--tokne=${secret}`], {}],
    ['a token as the command', [secret], {}],
    ['help T', ['help', secret], {}],
    ['login --help T', ['login', '--help', secret], {}],
  ])('%s', async (_name, args, extra) => {
    const result = await runCli(args as string[], {
      env: { PLANTS_CONFIG_DIR: user.configDir, ...extra },
    });
    expectNoSecret(secret, { stdout: result.stdout, stderr: result.stderr });
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('DEBUG=* serve --token T', async () => {
    const serve = await startServeProcess(['--port', '0', '--memory', '--token', secret], { DEBUG: '*' });
    await serve.waitForStderr('Ctrl-C');
    await serve.stop('SIGTERM');
    expectNoSecret(secret, { stdout: serve.stdout, stderr: serve.stderr });
  });

  it.each([
    ['a raw token', secret],
    ['an unquoted token', `{"tokens":{"http://127.0.0.1:4010":${secret}}}`],
  ])('a config file holding %s: exit 2, the file named, the token not quoted', async (_name, text) => {
    mkdirSync(user.configDir, { recursive: true });
    writeFileSync(path.join(user.configDir, 'config.json'), text);
    const result = await runCli(['status', '--base-url', store.url], {
      env: { PLANTS_CONFIG_DIR: user.configDir },
    });
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)[0]).toMatch(/config\.json cannot be read: it is not valid JSON/);
    expectNoSecret(secret, { stdout: result.stdout, stderr: result.stderr });
  });

  it('the serve banner suggests --with-token from stdin, never --token', async () => {
    const serve = await startServeProcess(['--port', '0', '--memory'], {});
    await serve.waitForStderr('Ctrl-C');
    await serve.stop('SIGTERM');
    expect(serve.stderr).toContain(`login --base-url ${serve.url} --with-token`);
    expect(serve.stderr).not.toMatch(/login [^\n]*--token /);
  });
});

describe('the config lives where a config belongs (17.16)', () => {
  it('HOME="" never puts it in the current folder: exit 2, one line', async () => {
    const result = await runCli(['login', '--token', 'some-token-1234'], {
      env: { HOME: '', XDG_CONFIG_HOME: '' },
      cwd: user.dir,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(expectOneLineError(result.stderr)[0]).toMatch(/^plants: no folder for the config: HOME is not set/);
    expect(readdirSync(user.dir)).toEqual([]);
  });

  it('a config folder that cannot be made private: exit 2, one line naming it', async () => {
    const dir = path.join(user.dir, 'config');
    mkdirSync(dir, { mode: 0o755 });
    const locked = makeUnwritable(dir);
    if (locked === undefined) return; // This machine cannot make a folder unwritable for its user.
    try {
      const result = await runCli(['login', '--token', 'some-token-1234'], { env: { PLANTS_CONFIG_DIR: dir } });
      expect(result.code, result.stderr).toBe(2);
      expect(expectOneLineError(result.stderr)[0]).toMatch(
        new RegExp(`^plants: cannot use the config folder ${dir}: `),
      );
      expect(existsSync(path.join(dir, 'config.json'))).toBe(false);
    } finally {
      locked.restore();
    }
  });
});
