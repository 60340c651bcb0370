import { describe, expect, it } from 'vitest';
import { addPlants } from '../../../src/cli/actions/add-plants.js';
import type { Parsed } from '../../../src/cli/base-command.js';
import { Add } from '../../../src/commands/add.js';
import { reply, useFixtureServer } from '../../helpers/fixture-server.js';
import { parsedFor, runInProcess, testStreams } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants add in this process: the action over in-memory streams, against a real store on loopback.

const server = useTestStore();
const user = useTempUser(server);

const ndjsonOf = (from: number, count: number) =>
  Array.from({ length: count }, (_, at) => `{"id":${from + at},"name":"P${from + at}"}\n`).join('');

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

  it('adds NDJSON from stdin in bulk: one result line per record, exit 0 and one summary line on stderr', async () => {
    const input = '{"id":10,"name":"A"}\n{"id":11,"name":"B","tag":"t"}\n{"id":12,"name":"C"}\n';
    const result = await add({ file: '-' }, input);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^✓ Added 3 of 3 plants in [\d.]+ s \(\d+\/s\): 0 already there, 0 conflicting, 0 rejected by the server, 0 invalid, 0 not sent \(no answer\), 0 unknown \(sent, may have been added\)\n$/,
    );
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

  it('an import run again: its 409s of plants stored as sent name --skip-existing; a 409 of other data does not', async () => {
    const input = '{"id":30,"name":"E"}\n{"id":31,"name":"F"}\n';
    expect((await add({ file: '-' }, input)).code).toBe(0);
    const again = await add({ file: '-' }, input);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      '  2 of the 409s are plants stored exactly as sent, as when an import runs again: --skip-existing reports those as already there (exit 0).\n',
    );
    const other = await add({ file: '-' }, '{"id":30,"name":"not E"}\n{"id":31,"name":"F"}\n');
    expect(other.stderr).toContain('  1 of the 409s is a plant stored exactly as sent');
    expect((await add({ file: '-' }, '{"id":30,"name":"not E"}\n{"id":32,"name":"G"}\n')).stderr).not.toContain(
      '--skip-existing',
    );
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

  it('an empty input says so on stderr, in a pipe too: 0 records read (exit 0)', async () => {
    for (const input of ['', '\n\n', '[]']) {
      expect(await add({ file: '-' }, input)).toEqual({
        code: 0,
        stdout: '',
        stderr: '0 records read: the input held no plants, so nothing was sent.\n',
      });
    }
  });

  it('stdout closed mid-run (| head -1): one summary line and the line to carry on on stderr, exit 141', async () => {
    const io = testStreams({ input: ndjsonOf(500, 300) });
    // The reader goes away once the first results came, as head does.
    io.io.stdout.once('data', () => io.io.stdout.emit('error', Object.assign(new Error('EPIPE'), { code: 'EPIPE' })));
    const result = await runInProcess((context) => addPlants(parsedFor(Add, { flags: { file: '-' } }), context), {
      env: env(),
      io,
    });
    expect(result.code).toBe(141);
    expect(result.stderr).toMatch(
      /^plants: stopped: stdout was closed after \d+ added; .+\n {2}To carry on, send the same input on stdin again: `plants add --file - --skip-existing` .+\n$/,
    );
    expect(result.stdout.split('\n').length).toBeLessThan(300);
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

// Issue 42: an add any try of which may have been applied is settled by reading the plant back,
// and never reported rejected. A scripted store answers what plants serve on PostgreSQL answers
// when the database went away mid-commit: 503 with `"outcome":"unknown"` and no Retry-After.
describe('plants add, in-process, when a try may have been applied', () => {
  const MAYBE =
    '{"error":503,"message":"the database went away while storing this plant, which may or may not be stored","outcome":"unknown"}';
  const AWAY = '{"error":503,"message":"the database cannot be reached just now; try again shortly"}';
  const fixture = useFixtureServer();
  /** Answers the requests in turn: a status and body each, or `drop` (the connection cut before any answer). */
  function script(...answers: Array<[number, string, Record<string, string>?] | 'drop'>) {
    fixture.requests.length = 0;
    let next = 0;
    fixture.respond((_request, response) => {
      const answer = answers[Math.min(next++, answers.length - 1)];
      if (answer === 'drop') {
        response.socket?.destroy();
        return;
      }
      const [status, body, headers = {}] = answer as [number, string, Record<string, string>?];
      response.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...headers,
      });
      response.end(body);
    });
  }
  type AddFlags = Partial<Parsed<typeof Add>['flags']>;
  const run = (plant: AddFlags, more: AddFlags = {}, input?: string) =>
    runInProcess((context) => addPlants(parsedFor(Add, { flags: { ...plant, ...more } }), context), {
      env: env(fixture.url),
      streams: { input },
      json: more.json,
    });
  const asked = () => fixture.requests.map((request) => `${request.method} ${request.url}`);

  it('answered "may or may not be stored", read back stored exactly as sent: added (exit 0)', async () => {
    script([503, MAYBE], [200, '{"id":5,"name":"Fern"}']);
    const result = await run({ id: '5', name: 'Fern' });
    expect(result).toEqual({
      code: 0,
      stdout: '✓ Added plant 5: Fern\n',
      stderr: '  Confirmed by reading it back after 1 attempt: the store holds it exactly as sent.\n',
    });
    expect(asked()).toEqual(['POST /plants', 'GET /plants/5']);
  });

  it('answered "may or may not be stored", read back not there: sent once more, and added', async () => {
    script([503, MAYBE], [404, '{"error":404,"message":"no plant with id 5"}'], [200, '{"id":5,"name":"Fern"}']);
    const result = await run({ id: '5', name: 'Fern' });
    expect([result.code, result.stdout]).toEqual([0, '✓ Added plant 5: Fern\n']);
    expect(asked()).toEqual(['POST /plants', 'GET /plants/5', 'POST /plants']);
  });

  it('answered "may or may not be stored", and the store cannot be read: unknown, exit 3, never rejected', async () => {
    script([503, MAYBE], [503, AWAY]);
    const result = await run({ id: '5', name: 'Fern' });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'plants: sent, outcome unknown: plant 5 may or may not have been added (the server answered 503: the database went away while storing this plant, which may or may not be stored)\n' +
        '  `plants get 5` shows whether it is in the store.\n' +
        '  The store is unavailable for now (503); try again later.\n',
    );
    // Not sent blindly again: no Retry-After, so it is read back instead.
    expect(asked()).toEqual(['POST /plants', 'GET /plants/5']);
  });

  it('a try cut off with no answer, then only "not stored, send it again": read back, never rejected', async () => {
    // The case issue 42 found: the last answer says nothing was stored, but an earlier try may have been.
    script(
      'drop',
      [503, AWAY, { 'retry-after': '0' }],
      [503, AWAY, { 'retry-after': '0' }],
      [200, '{"id":5,"name":"Fern"}'],
    );
    const result = await run({ id: '5', name: 'Fern' }, { retries: 2 });
    expect([result.code, result.stdout]).toEqual([0, '✓ Added plant 5: Fern\n']);
    expect(result.stderr).toContain('Confirmed by reading it back after 3 attempts');
    expect(asked().at(-1)).toBe('GET /plants/5');
  });

  it('in bulk: the record is unknown with the server’s answer in its line, and the run exits 3', async () => {
    script([503, MAYBE], [503, AWAY]);
    const result = await run({ file: '-' }, {}, '[{"id":5,"name":"Fern"}]\n');
    expect(result.stdout).toBe(
      `{"line":1,"index":0,"sent":true,"status":503,"error":${MAYBE},"message":"sent, outcome unknown: plant 5 may or may not have been added (the server answered 503: the database went away while storing this plant, which may or may not be stored)","outcome":"unknown"}\n`,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('0 rejected by the server');
    expect(result.stderr).toContain('1 unknown (sent, may have been added)');
  });

  it('in bulk: added records beside one unknown exit 3, not 1 (no record shows it was not added)', async () => {
    fixture.requests.length = 0;
    fixture.respond((request, response) => {
      const doubtful = request.body.includes('"id":6') || request.url === '/plants/6';
      const body = doubtful ? (request.method === 'POST' ? MAYBE : AWAY) : request.body;
      response.writeHead(doubtful ? 503 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    });
    const result = await run(
      { file: '-' },
      {},
      '{"id":5,"name":"Fern"}\n{"id":6,"name":"Moss"}\n{"id":7,"name":"Ivy"}\n',
    );
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { outcome: string }).outcome),
    ).toEqual(['added', 'unknown', 'added']);
    expect(result.code).toBe(3);
  });
});
