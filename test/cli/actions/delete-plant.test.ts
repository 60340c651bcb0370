import { beforeEach, describe, expect, it } from 'vitest';
import { deletePlant } from '../../../src/cli/actions/delete-plant.js';
import { Delete } from '../../../src/commands/delete.js';
import { useFixtureServer } from '../../helpers/fixture-server.js';
import { parsedFor, runInProcess, type TestStreams, terminalAnswering, testStreams } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';
import { postPlant } from '../../server/http-client.js';

// plants delete in this process: the action over in-memory streams (a terminal where a prompt is
// wanted), against a real store on loopback.

const server = useTestStore();
const user = useTempUser(server);
beforeEach(async () => {
  // Answered 409 when a test before kept it: either way the store holds plant 7.
  await postPlant(server.url, server.token, '{"id":7,"name":"Fern"}');
});

function remove(id: string, flags: { yes?: boolean; json?: boolean } = {}, io: TestStreams = testStreams()) {
  return runInProcess((context) => deletePlant(parsedFor(Delete, { args: { id }, flags }), context), {
    env: user.env,
    io,
    json: flags.json,
  });
}

async function storedIds(): Promise<bigint[]> {
  return (await server.readPlants()).map((row) => row.id);
}

describe('plants delete, in-process', () => {
  it('with --yes deletes without asking', async () => {
    expect(await remove('7', { yes: true })).toEqual({ code: 0, stdout: '✓ Deleted plant 7\n', stderr: '' });
    expect(await storedIds()).not.toContain(7n);
  });

  it('with --yes --json prints one document', async () => {
    expect(await remove('7', { yes: true, json: true })).toEqual({
      code: 0,
      stdout: '{"id":7,"deleted":true}\n',
      stderr: '',
    });
  });

  it('on a terminal asks first: `y` deletes', async () => {
    const result = await remove('7', {}, terminalAnswering('y\r'));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Delete plant 7? [y/N] ');
    expect(result.stdout).toBe('✓ Deleted plant 7\n');
    expect(await storedIds()).not.toContain(7n);
  });

  it('on a terminal asks first: `n` keeps the plant, exit 0 (as rm -i)', async () => {
    const result = await remove('7', { json: true }, terminalAnswering('n\r'));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Delete plant 7? [y/N] ');
    expect(result.stderr).toMatch(/Not deleted\.\n$/);
    expect(result.stdout).toBe('{"id":7,"deleted":false}\n');
    expect(await storedIds()).toContain(7n);
  });

  it('without a terminal it never asks (piped or scripted): stdin is not read', async () => {
    const io = testStreams({ stdinIsTerminal: false, stderrIsTerminal: true });
    io.stdin.write('n\r');
    const result = await remove('7', {}, io);
    expect(result).toEqual({ code: 0, stdout: '✓ Deleted plant 7\n', stderr: '' });
    expect(await storedIds()).not.toContain(7n);
    expect(io.stdin.readableLength).toBe(2);
  });

  it('a plant the store does not hold is exit 1; an id that is not an int64 exit 2', async () => {
    const missing = await remove('404', { yes: true });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^plants: .*404/);
    const bad = await remove('seven', { yes: true });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^plants: invalid id: .*\(got "seven"\)\n$/);
  });
});

// Issue 42: a delete the store answered "may or may not be deleted" (503, `"outcome":"unknown"`,
// as plants serve on PostgreSQL when the database went away mid-delete) is settled by reading
// the plant back, and never reported as refused while it may have been made.
describe('plants delete, in-process, when the delete may have been made', () => {
  const MAYBE =
    '{"error":503,"message":"the database went away while deleting this plant, which may or may not be deleted","outcome":"unknown"}';
  const fixture = useFixtureServer();
  /** DELETE answered MAYBE; the read-back (GET) answered `status` with `body`. */
  function readBackAnswers(status: number, body: string) {
    fixture.requests.length = 0;
    fixture.respond((request, response) => {
      const text = request.method === 'DELETE' ? MAYBE : body;
      response.writeHead(request.method === 'DELETE' ? 503 : status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  }
  const run = () =>
    runInProcess((context) => deletePlant(parsedFor(Delete, { args: { id: '7' }, flags: { yes: true } }), context), {
      env: { ...user.env, PLANTS_BASE_URL: fixture.url },
    });

  it('read back gone: deleted, exit 0, saying it was confirmed', async () => {
    readBackAnswers(404, '{"error":404,"message":"no plant with id 7"}');
    expect(await run()).toEqual({
      code: 0,
      stdout: '✓ Deleted plant 7\n',
      stderr: '  Confirmed by reading it back: the store no longer holds it.\n',
    });
    expect(fixture.requests.map((request) => request.method)).toEqual(['DELETE', 'GET']);
  });

  it('read back still there: not deleted, exit 1, saying so', async () => {
    readBackAnswers(200, '{"id":7,"name":"Fern"}');
    const result = await run();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^plants: the server answered 503: .* \(read back, plant 7 is still there: not deleted\)\n/,
    );
  });

  it('not readable: unknown, exit 3, with how to look', async () => {
    readBackAnswers(503, '{"error":503,"message":"the database cannot be reached just now; try again shortly"}');
    const result = await run();
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^plants: sent, outcome unknown: plant 7 may or may not have been deleted \(/);
    expect(result.stderr).toContain('`plants get 7` shows whether it is in the store.');
  });
});
