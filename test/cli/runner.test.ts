import { describe, expect, it } from 'vitest';
import { addPlants } from '../../src/cli/actions/add-plants.js';
import { showPlant } from '../../src/cli/actions/show-plant.js';
import { showStatus } from '../../src/cli/actions/show-status.js';
import { Add } from '../../src/commands/add.js';
import { Get } from '../../src/commands/get.js';
import { Status } from '../../src/commands/status.js';
import { parsedFor, runCommandLine, runInProcess } from '../helpers/in-process.js';
import { lastJournalSeq, useTestStore } from '../helpers/store-server.js';
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

describe('--jq, in-process, as the fast route parses it', () => {
  const run = (args: string[], input = '') => runCommandLine(args, { env: env(server.token), streams: { input } });
  const lastSeq = () => lastJournalSeq(server);

  it('implies --json: the JSON a command prints goes through jq, a string printed raw', async () => {
    expect(await run(['add', '--id', '70', '--name', 'Boston "Fern"', '--tag', 'herb', '--jq', '.'])).toEqual({
      code: 0,
      stdout: '{"id":70,"name":"Boston \\"Fern\\"","tag":"herb"}\n',
      stderr: '',
    });
    expect(await run(['get', '70', '--jq', '.name'])).toEqual({ code: 0, stdout: 'Boston "Fern"\n', stderr: '' });
    expect(await run(['delete', '70', '--jq', '.deleted'])).toEqual({ code: 0, stdout: 'true\n', stderr: '' });
    expect(await run(['status', '--jq', 'type'])).toEqual({ code: 0, stdout: 'object\n', stderr: '' });
  });

  it.each([
    ['get', '1'],
    ['delete', '1', '--yes'],
    ['list', '--all'],
    ['status'],
    ['add', '--id', '71', '--name', 'Fern'],
    ['add', '--file', '-'],
  ])('an expression jq cannot compile is exit 2 before anything is sent: %s', async (...args) => {
    const before = await lastSeq();
    const result = await run([...args, '--jq', '.name |'], '{"id":72,"name":"Ivy"}\n{"id":73,"name":"Oak"}\n');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(
      'plants: --jq: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 7; jq: 1 compile error',
    );
    expect(await lastSeq()).toBe(before);
  });

  it('a runtime error is exit 2 naming the line, after what came before it; list --all stops there', async () => {
    for (const id of ['81', '82', '83', '84']) await run(['add', '--id', id, '--name', `p${id}`]);
    const before = await lastSeq();
    const result = await run([
      'list',
      '--all',
      '--limit',
      '1',
      '--after',
      '80',
      '--jq',
      'if .id == 82 then .name + 1 else .id end',
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('81\n');
    expect(result.stderr.split('\n')[0]).toBe(
      'plants: --jq: jq: error (at line 2): string ("p82") and number (1) cannot be added',
    );
    // Two pages read, the third never asked for.
    expect(await lastSeq()).toBe(before + 2);
  });

  it('a bulk add: every record sent, its result lines through jq up to the error, then exit 2', async () => {
    const input = '{"id":91,"name":"a"}\n{"id":92,"name":"b"}\n{"id":93,"name":"c"}\n';
    const result = await run(
      ['add', '--file', '-', '--jq', 'if .line == 2 then error("no") else .plant.id end'],
      input,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('91\n');
    // Every record was sent and added: the summary says so, then the jq error.
    expect(result.stderr).toMatch(
      /^✓ Added 3 of 3 plants in [\d.]+ s \(\d+\/s\): 0 already there, .*\nplants: --jq: jq: error \(at line 2\): no\n {2}The output stops there: what came before it was printed.\n {2}jq’s manual: https:\/\/jqlang.org\/manual\/\n$/,
    );
    expect((await run(['list', '--after', '90', '--jq', '.id'])).stdout).toBe('91\n92\n93\n');
  });

  it('a failure is said on stderr only, with its own exit code: stdout holds what jq printed', async () => {
    expect(await run(['get', '404', '--jq', '.name'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'plants: the server answered 404: no plant with id 404\n',
    });
  });
});
