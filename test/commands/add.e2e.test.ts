import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { reply, useFixtureServer } from '../helpers/fixture-server.js';
import { freePort } from '../helpers/ports.js';
import { useTempUser } from '../helpers/user.js';

/**
 * A loopback URL nobody listens on for the rest of the run: a port of freePort's, which no other
 * test is given (a port a closed server had, the kernel may give to another test's server).
 */
async function nobodyListening(): Promise<{ url: string }> {
  return { url: `http://127.0.0.1:${await freePort()}` };
}

const token = 'tok_add_0123456789';
const server = useFixtureServer();
const user = useTempUser(server, { scope: 'test', token });
beforeEach(() => {
  server.requests.length = 0;
  server.respond((request, response) => {
    // Echo the plant back like a store would: the request's own text, so int64 digits survive.
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.body);
  });
});

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .*\(/);

describe('plants add', () => {
  it('sends --id --name --tag and prints a short human line', async () => {
    const result = await user.run(['add', '--id', '1', '--name', 'Fern', '--tag', 'herb']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ Added plant 1: Fern [herb]\n');
    expect(result.stderr).toBe('');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toBe('{"id":1,"name":"Fern","tag":"herb"}');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${token}`);
    expect(server.requests[0]?.headers['user-agent']).toMatch(/^plants\/\d+\.\d+\.\d+ node\/v\d+/);
  });

  it('sends 9223372036854775807 digit for digit and prints the body exactly with --json', async () => {
    const result = await user.run(['add', '--id', '9223372036854775807', '--name', 'Oak', '--json']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toBe('{"id":9223372036854775807,"name":"Oak"}');
    expect(result.stdout).toBe('{"id":9223372036854775807,"name":"Oak"}\n');
  });

  it('is reachable as `plants plant add`', async () => {
    const result = await user.run(['plant', 'add', '--id', '7', '--name', 'Ivy']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toBe('{"id":7,"name":"Ivy"}');
  });

  it.each([
    [['--id', '9223372036854775808', '--name', 'x'], 'invalid id'],
    [['--id', '1.5', '--name', 'x'], 'invalid id'],
    [['--id', 'abc', '--name', 'x'], 'invalid id'],
    [['--name', 'x'], 'missing --id'],
    [['--id', '1'], 'missing --name'],
    [['--id', '1', '--name', ''], 'name: must not be empty'],
    [['--id', '1', '--name', 'x', '--timeout', '0'], '--timeout must be a number of seconds above 0'],
    [['--id', '1', '--name', 'x', '--bogus'], '`plants add` has no flag --bogus'],
    [['--id', '1', '--name', 'x', '--base-url', 'ftp://x'], 'the scheme must be http or https'],
  ])('refuses %j locally: exit 2, named, nothing sent', async (args, message) => {
    const result = await user.run(['add', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
    noStack(result.stderr);
    expect(server.requests).toHaveLength(0);
  });

  describe('--file', () => {
    const write = (name: string, text: string) => {
      const file = path.join(user.dir, name);
      writeFileSync(file, text);
      return file;
    };

    it('reads a NewPlant from a file, with flags overriding its fields', async () => {
      const file = write('plant.json', '{"id": 9007199254740993, "name": "Fern", "tag": "herb"}');
      const result = await user.run(['add', '--file', file, '--tag', 'shade', '--json']);
      expect(result.code).toBe(0);
      expect(server.requests[0]?.body).toBe('{"id":9007199254740993,"name":"Fern","tag":"shade"}');
    });

    it('reads stdin with --file -', async () => {
      const result = await user.run(['add', '--file', '-'], { input: '{"id":3,"name":"Moss"}' });
      expect(result.code).toBe(0);
      expect(server.requests[0]?.body).toBe('{"id":3,"name":"Moss"}');
    });

    it.each([
      ['{"id":"1","name":"x"}', 'id: must be a JSON number, not a string'],
      ['{"id":1.5,"name":"x"}', 'id: must be a whole number'],
      ['{"id":9223372036854775808,"name":"x"}', 'id: must be a whole number'],
      ['{"id":1}', 'name: is required'],
      ['{"id":1,"name":', 'stdin is not valid JSON'],
      ['"just a string"', 'must hold a JSON object, an array of them, or NDJSON'],
    ])('refuses %s: exit 2, named, nothing sent', async (text, message) => {
      const result = await user.run(['add', '--file', '-'], { input: text });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(server.requests).toHaveLength(0);
    });

    it('names a file that cannot be read', async () => {
      const result = await user.run(['add', '--file', path.join(user.dir, 'missing.json')]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('missing.json: no such file');
    });
  });

  describe('server answers', () => {
    it('prints the Error and exits 1 on a 400; --json prints the body exactly', async () => {
      server.respond(reply(400, '{"error":400,"message":"name: is taken"}'));
      const human = await user.run(['add', '--id', '1', '--name', 'x']);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toContain('plants: the server answered 400: name: is taken');
      const json = await user.run(['add', '--id', '1', '--name', 'x', '--json']);
      expect(json.code).toBe(1);
      expect(json.stdout).toBe('{"error":400,"message":"name: is taken"}\n');
    });

    it('exits 4 on a 401, printing a problem+json body as it came with --json', async () => {
      const problem = '{"type":"about:blank","title":"Unauthorized","status":401}';
      server.respond(reply(401, problem, 'application/problem+json'));
      const result = await user.run(['add', '--id', '1', '--name', 'x', '--json']);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe(`${problem}\n`);
      expect(result.stderr).toContain('the server answered 401: Unauthorized');
    });

    it.each([
      [502, '<html>Bad Gateway</html>', 'text/html', 'a text/html body instead of an Error'],
      [200, '{"nope":1}', 'application/json', 'JSON that is not a Plant'],
      [200, '', 'application/json', 'an empty body instead of a Plant'],
    ])('reports %i %j clearly (exit 1), and --json stays one JSON document', async (status, body, type, message) => {
      server.respond(reply(status, body, type));
      const human = await user.run(['add', '--id', '1', '--name', 'x']);
      expect(human.code).toBe(1);
      expect(human.stderr).toContain(message);
      noStack(human.stderr);
      const json = await user.run(['add', '--id', '1', '--name', 'x', '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ error: status });
    });

    it('exits 3 when nothing listens, naming the URL; --json gives error 0', async () => {
      const gone = await nobodyListening();
      const result = await user.run(['add', '--id', '1', '--name', 'x', '--json'], {
        env: { PLANTS_BASE_URL: gone.url },
      });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`cannot reach ${gone.url}: connection refused`);
      expect(JSON.parse(result.stdout)).toEqual({ error: 0, message: `cannot reach ${gone.url}: connection refused` });
    });

    // A loopback port nobody listens on, not the default 4010: the README has people run
    // `npm start` on 4010 in another terminal while they run these tests.
    it('suggests `plants serve --port N` when nothing listens on a local URL', async () => {
      const gone = await nobodyListening();
      const port = new URL(gone.url).port;
      const result = await runCli(['add', '--id', '1', '--name', 'x', '--base-url', gone.url], {
        env: { PLANTS_CONFIG_DIR: user.configDir, PLANTS_TOKEN: token },
      });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`cannot reach ${gone.url}`);
      expect(result.stderr).toContain(`\`plants serve --port ${port}\` starts one.`);
    });

    it('hits --timeout against a server that never answers (exit 3)', async () => {
      server.respond(() => {});
      const result = await user.run(['add', '--id', '1', '--name', 'x', '--timeout', '0.5']);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`no answer from ${server.url} within 0.5 s`);
    });
  });

  describe('tokens', () => {
    it('refuses a token in clear text to a non-loopback host (exit 2), naming https and --insecure', async () => {
      const result = await user.run(['add', '--id', '1', '--name', 'x', '--base-url', 'http://plants.example.com'], {});
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('https://');
      expect(result.stderr).toContain('--insecure');
      expect(result.stderr).not.toContain(token);
    });

    it('refuses a PLANTS_TOKEN that is not a bearer token as bad input (exit 2), without repeating it', async () => {
      const result = await user.run(['add', '--id', '1', '--name', 'x'], {
        env: { PLANTS_TOKEN: 'secret\nvalue' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('PLANTS_TOKEN is not a valid bearer token');
      expect(result.stderr).not.toContain('secret');
      expect(server.requests).toHaveLength(0);
    });

    it('never sends the token of one origin to another', async () => {
      const { PLANTS_TOKEN: _unused, ...noEnvToken } = user.env;
      await runCli(['login', '--token', token, '--base-url', 'http://127.0.0.1:1'], { env: noEnvToken });
      server.respond(reply(401, '{"error":401,"message":"no token"}'));
      const result = await runCli(['add', '--id', '1', '--name', 'x', '--base-url', server.url], { env: noEnvToken });
      expect(result.code).toBe(4);
      expect(server.requests[0]?.headers.authorization).toBeUndefined();
      expect(result.stderr).toContain(`No token is stored for ${server.url}`);
    });

    it('uses the token stored for the origin, and PLANTS_TOKEN before it', async () => {
      const { PLANTS_TOKEN: _unused, ...noEnvToken } = user.env;
      await runCli(['login', '--token', 'stored-token', '--base-url', server.url], { env: noEnvToken });
      await runCli(['add', '--id', '1', '--name', 'x'], { env: noEnvToken });
      await runCli(['add', '--id', '2', '--name', 'x'], { env: { ...noEnvToken, PLANTS_TOKEN: 'env-token' } });
      // login tries the token first (GET /plants?limit=1); the adds are the POSTs.
      expect(server.requests[0]?.headers.authorization).toBe('Bearer stored-token');
      const posts = server.requests.filter((request) => request.method === 'POST');
      expect(posts.map((request) => request.headers.authorization)).toEqual([
        'Bearer stored-token',
        'Bearer env-token',
      ]);
    });
  });

  it('has no colour when piped, whatever the terminal says', async () => {
    const result = await user.run(['add', '--id', '1', '--name', 'Fern'], { env: { TERM: 'xterm-256color' } });
    expect(result.stdout).not.toContain('\u001b[');
  });

  describe('proxies', () => {
    let proxy: Server;
    let proxyUrl: string;
    const tunnels: string[] = [];
    beforeAll(async () => {
      proxy = createServer((_req, res) => res.writeHead(405).end());
      proxy.on('connect', (req, client: Socket, head) => {
        tunnels.push(req.url ?? '');
        const [host, port] = (req.url ?? '').split(':');
        const upstream = connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.write(head);
          upstream.pipe(client).pipe(upstream);
        });
        // As a real proxy does: a target it cannot reach is a 502 to the CONNECT.
        upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const address = proxy.address();
      proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('goes through HTTPS_PROXY to a store on another machine, and around it for hosts in NO_PROXY', async () => {
      tunnels.length = 0;
      // Only loopback exists here: a host that never resolves shows where the request went (the
      // proxy is asked for it by name; without the proxy, the name is looked up here and fails).
      const remote = ['add', '--id', '1', '--name', 'x', '--base-url', 'https://plants.invalid'];
      const through = await user.run(remote, { env: { HTTPS_PROXY: proxyUrl } });
      expect(through.code).toBe(3);
      expect(through.stderr).toContain('the proxy answered 502 instead of opening a tunnel to it');
      expect(tunnels).toEqual(['plants.invalid:443']);
      const around = await user.run(remote, { env: { HTTPS_PROXY: proxyUrl, NO_PROXY: 'plants.invalid' } });
      expect(around.code).toBe(3);
      expect(around.stderr).toContain('could not be resolved (DNS)');
      expect(tunnels).toHaveLength(1);
    });

    it('never sends a request to a store on this machine through a proxy (the token could be read there)', async () => {
      tunnels.length = 0;
      const direct = await user.run(['add', '--id', '3', '--name', 'x'], { env: { HTTP_PROXY: proxyUrl } });
      expect(direct.code).toBe(0);
      expect(tunnels).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });
  });
});
