import { describe, expect, it } from 'vitest';
import { addPlants } from '../../src/cli/actions/add-plants.js';
import { showPlant } from '../../src/cli/actions/show-plant.js';
import { showStatus } from '../../src/cli/actions/show-status.js';
import { Add } from '../../src/commands/add.js';
import { Get } from '../../src/commands/get.js';
import { Status } from '../../src/commands/status.js';
import { parsedFor, runInProcess } from '../helpers/in-process.js';
import { useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// The one runner (src/cli/runner.ts) around the commands' actions, as every route runs them once
// parsed, in this process: the exit code they end in comes back to the route, never set on the process.

const server = useTestStore();
const user = useTempUser(server, { token: false });

function env(token?: string): Record<string, string> {
  return token === undefined ? user.env : { ...user.env, PLANTS_TOKEN: token };
}

describe('the runner, in-process', () => {
  it("status without a token resolves with exit 4, which stays out of the process's own exit code", async () => {
    const result = await runInProcess((context) => showStatus(parsedFor(Status, { flags: { json: true } }), context), {
      env: env(),
      json: true,
    });
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ authenticated: false });
    expect(process.exitCode).toBeUndefined();
  });

  it('add of NDJSON on stdin with a record refused resolves with exit 1', async () => {
    const flags = { file: '-', retries: 0, concurrency: 4 };
    const result = await runInProcess((context) => addPlants(parsedFor(Add, { flags }), context), {
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

  it('an error thrown by an action is reported once: the message on stderr, with --json the document on stdout', async () => {
    const result = await runInProcess(
      (context) => showPlant(parsedFor(Get, { args: { id: '12x' }, flags: { json: true } }), context),
      { env: env(server.token), json: true },
    );
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: 0 });
    expect(result.stderr.match(/^plants: /gm)).toHaveLength(1);
  });
});
