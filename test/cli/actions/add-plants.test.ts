import { describe, expect, it } from 'vitest';
import { addPlants } from '../../../src/cli/actions/add-plants.js';
import type { Parsed } from '../../../src/cli/runner.js';
import { Add } from '../../../src/commands/add.js';
import { reply, useFixtureServer } from '../../helpers/fixture-server.js';
import { parsedFor, runInProcess } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants add in this process: the action over in-memory streams, against a real store on loopback.

const server = useTestStore();
const user = useTempUser(server);

function env(url = server.url): Record<string, string> {
  return { ...user.env, PLANTS_BASE_URL: url };
}

/** `plants add` with these flags (the declaration's defaults for the rest), against `url`. */
function add(flags: Partial<Parsed<typeof Add>['flags']>, input?: string, url = server.url) {
  return runInProcess((context) => addPlants(parsedFor(Add, { flags }), context), {
    env: env(url),
    streams: { input },
    json: flags.json,
  });
}

describe('plants add, in-process', () => {
  it('adds one plant from the flags: a human line on stdout, nothing on stderr, exit 0', async () => {
    expect(await add({ id: '1', name: 'Fern', tag: 'herb' })).toEqual({
      code: 0,
      stdout: '✓ Added plant 1: Fern [herb]\n',
      stderr: '',
    });
    expect(await server.readPlants()).toContainEqual({ id: 1n, name: 'Fern', tag: 'herb' });
  });

  it('with --json prints the body exactly, the int64 id in digits', async () => {
    const result = await add({ id: '9223372036854775807', name: 'Max', json: true });
    expect(result).toEqual({ code: 0, stdout: '{"id":9223372036854775807,"name":"Max"}\n', stderr: '' });
    expect(await server.readPlants()).toContainEqual({ id: 9223372036854775807n, name: 'Max', tag: null });
  });

  it('reads one plant from stdin with --file -, the flags laid over it', async () => {
    const result = await add({ file: '-', tag: 'shade' }, '{"id":2,"name":"Ivy","tag":"vine"}\n');
    expect(result).toEqual({ code: 0, stdout: '✓ Added plant 2: Ivy [shade]\n', stderr: '' });
    expect(await server.readPlants()).toContainEqual({ id: 2n, name: 'Ivy', tag: 'shade' });
  });

  it('adds NDJSON from stdin in bulk: one result line per record, exit 0 and a quiet stderr when all are added', async () => {
    const input = '{"id":10,"name":"A"}\n{"id":11,"name":"B","tag":"t"}\n{"id":12,"name":"C"}\n';
    const result = await add({ file: '-' }, input);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      '{"line":1,"sent":true,"status":200,"plant":{"id":10,"name":"A"},"outcome":"added"}',
      '{"line":2,"sent":true,"status":200,"plant":{"id":11,"name":"B","tag":"t"},"outcome":"added"}',
      '{"line":3,"sent":true,"status":200,"plant":{"id":12,"name":"C"},"outcome":"added"}',
    ]);
    const stored = await server.readPlants();
    expect(stored.filter((row) => row.id >= 10n && row.id <= 12n).map((row) => row.name)).toEqual(['A', 'B', 'C']);
  });

  it('a bulk add with a record the store refuses (409) is exit 1, with the summary and the failure on stderr', async () => {
    const result = await add({ file: '-' }, '{"id":20,"name":"D"}\n{"id":1,"name":"not Fern"}\n');
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      '{"line":1,"sent":true,"status":200,"plant":{"id":20,"name":"D"},"outcome":"added"}',
      '{"line":2,"sent":true,"status":409,"error":{"error":409,"message":"a plant with id 1 already exists","plant":{"id":1,"name":"Fern","tag":"herb"}},"outcome":"rejected"}',
    ]);
    expect(result.stderr).toMatch(/^✗ Added 1 of 2 plants in .*1 rejected by the server/);
    expect(result.stderr).toContain('  line 2: the server answered 409: a plant with id 1 already exists\n');
    expect(await server.readPlants()).toContainEqual({ id: 1n, name: 'Fern', tag: 'herb' });
  });

  it('a 409 for one plant is exit 1: the message on stderr, with --json the store body on stdout', async () => {
    expect(await add({ id: '1', name: 'Other' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'plants: the server answered 409: a plant with id 1 already exists\n',
    });
    const json = await add({ id: '1', name: 'Other', json: true });
    expect(json.code).toBe(1);
    expect(json.stdout).toBe(
      '{"error":409,"message":"a plant with id 1 already exists","plant":{"id":1,"name":"Fern","tag":"herb"}}\n',
    );
  });

  it('with --skip-existing, the same plant again is already there (exit 0)', async () => {
    const result = await add({ id: '1', name: 'Fern', tag: 'herb', 'skip-existing': true });
    expect(result).toEqual({
      code: 0,
      stdout: '✓ Plant 1 is already there, exactly as given: Fern [herb]\n',
      stderr: '',
    });
  });

  it.each([
    [{ id: 'x', name: 'Fern' }, /^plants: invalid id: must be a whole number .*\(got "x"\)\n$/],
    [{ id: '3', name: '' }, /^plants: invalid plant: name: must not be empty\n$/],
  ])('a plant the schema refuses (%j) is exit 2 and nothing is sent', async (plant, message) => {
    const before = server.logLines.length;
    const result = await add(plant);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(server.logLines.length).toBe(before);
  });

  it('stdin that is not text is exit 2, nothing sent', async () => {
    const result = await add({ file: '-' }, '\u0000\u0001\u0002binary');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^plants: stdin is .*; nothing was sent/);
  });
});

describe('plants add, in-process, against a store that answers 400', () => {
  // The real store answers 400 only to a plant this client refuses before sending (above):
  // a scripted server on loopback answers one here.
  const fixture = useFixtureServer(reply(400, '{"error":400,"message":"name: is taken"}'));

  it('prints the Error and exits 1; with --json the body exactly', async () => {
    const run = (json: boolean) => add({ id: '5', name: 'Fern', json }, undefined, fixture.url);
    expect(await run(false)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'plants: the server answered 400: name: is taken\n',
    });
    const json = await run(true);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('{"error":400,"message":"name: is taken"}\n');
    expect(fixture.requests.map((request) => request.body)).toEqual([
      '{"id":5,"name":"Fern"}',
      '{"id":5,"name":"Fern"}',
    ]);
  });
});
