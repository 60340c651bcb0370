import { describe, expect, it } from 'vitest';
import { run as add } from '../../src/cli/run/add.js';
import { run as get } from '../../src/cli/run/get.js';
import { run as status } from '../../src/cli/run/status.js';
import { runInProcess } from '../helpers/in-process.js';
import { useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// The commands' run functions (src/cli/run/<id>.ts), as both routes call them once parsed, in
// this process: the exit code they end in comes back to the edge, never set on the process.

const server = useTestStore();
const user = useTempUser(server, { token: false });

const requestFlags = { 'base-url': undefined, 'ca-cert': undefined, insecure: false, timeout: 30 };

function env(token?: string): Record<string, string> {
  return token === undefined ? user.env : { ...user.env, PLANTS_TOKEN: token };
}

describe('a command run, in-process', () => {
  it("status without a token resolves with exit 4, which stays out of the process's own exit code", async () => {
    const result = await runInProcess(
      (context) => status({ args: {}, flags: { ...requestFlags, json: true } }, context),
      {
        env: env(),
        json: true,
      },
    );
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ authenticated: false });
    expect(process.exitCode).toBeUndefined();
  });

  it('add of NDJSON on stdin with a record refused resolves with exit 1', async () => {
    const flags = {
      ...requestFlags,
      file: '-',
      id: undefined,
      name: undefined,
      tag: undefined,
      json: false,
      retries: 0,
      concurrency: 4,
      'fail-fast': false,
      'skip-existing': false,
    };
    const result = await runInProcess((context) => add({ args: {}, flags }, context), {
      env: env(server.token),
      streams: { input: '{"id":1,"name":"A"}\n{"id":1,"name":"B"}\n' },
    });
    expect(result.code).toBe(1);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).outcome),
    ).toEqual(['added', 'rejected']);
    expect(process.exitCode).toBeUndefined();
  });

  it('an error thrown by a run is reported once: the message on stderr, with --json the document on stdout', async () => {
    const result = await runInProcess(
      (context) => get({ args: { id: '12x' }, flags: { ...requestFlags, json: true } }, context),
      { env: env(server.token), json: true },
    );
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: 0 });
    expect(result.stderr.match(/^plants: /gm)).toHaveLength(1);
  });
});
