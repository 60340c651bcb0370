import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { type FixtureServer, reply, startFixtureServer } from '../helpers/fixture-server.js';

// bin/run.js answers `--version` and plain one-record adds without loading oclif. Whatever
// it takes, it must answer exactly as the oclif command does; whatever it does not take,
// oclif must get.
let server: FixtureServer;
const temp = makeTempDir();
let env: Record<string, string>;
beforeAll(async () => {
  server = await startFixtureServer((request, response) => {
    if (request.body.includes('"id":409')) return reply(409, '{"error":409,"message":"taken"}')(request, response);
    if (request.body.includes('"id":502'))
      return reply(502, '<html>bad gateway</html>', 'text/html')(request, response);
    return reply(200, request.body)(request, response);
  });
  env = { PLANTS_CONFIG_DIR: path.join(temp.dir, 'config'), PLANTS_BASE_URL: server.url, PLANTS_TOKEN: 'fast-token' };
});
afterAll(async () => {
  await server.close();
  temp.remove();
});

describe('the fast path answers exactly like oclif', () => {
  it.each([
    [['--version']],
    [['add', '--id', '9223372036854775807', '--name', 'Oak', '--tag', 'tree']],
    [['plant', 'add', '--id', '1', '--name', 'Fern', '--json']],
    [['add', '--id=2', '--name=Ivy', '--timeout', '5', '--retries', '0']],
    [['add', '--id', '409', '--name', 'Taken']],
    [['add', '--id', '409', '--name', 'Taken', '--json']],
    [['add', '--id', '502', '--name', 'Proxy']],
    [['add', '--id', '9223372036854775808', '--name', 'Too big']],
    [['add', '--id', '1', '--name', '']],
    [['add', '--id', '1', '--name', 'x', '--base-url', 'http://plants.example.com']],
    [['add', '--id', '1', '--name', 'x', '--timeout', 'soon']],
    [['add', '--id', '1', '--id', '2', '--name', 'x']],
    [['add', '--id', '1', '--name', 'x', 'stray']],
    [['add', '--name', 'x']],
  ])('%j', async (args) => {
    const fast = await runCli(args, { env });
    const oclif = await runCli(args, { env, viaOclif: true });
    expect(fast.code).toBe(oclif.code);
    expect(fast.stdout).toBe(oclif.stdout);
    expect(fast.stderr).toBe(oclif.stderr);
  });
});
