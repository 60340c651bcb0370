import { describe, expect, it } from 'vitest';
import { listPlants } from '../../../src/cli/actions/list-plants.js';
import { List } from '../../../src/commands/list.js';
import { parsedFor, runInProcess, type TestStreamsOptions } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants list in this process: the action over in-memory streams, against a real store on loopback.

const PLANTS = [
  { id: 1n, name: 'Fern', tag: 'herb' },
  { id: 2n, name: 'Ivy' },
  { id: 9223372036854775807n, name: 'Max', tag: 'tree' },
];
const server = useTestStore({ seed: PLANTS });
const empty = useTestStore();
const user = useTempUser(server);

function list(
  flags: { limit?: number; after?: string; all?: boolean; json?: boolean } = {},
  streams: TestStreamsOptions = {},
  store = server,
) {
  return runInProcess((context) => listPlants(parsedFor(List, { flags }), context), {
    env: { ...user.env, PLANTS_BASE_URL: store.url, PLANTS_TOKEN: store.token },
    streams,
  });
}

const NDJSON = [
  '{"id":1,"name":"Fern","tag":"herb"}',
  '{"id":2,"name":"Ivy"}',
  '{"id":9223372036854775807,"name":"Max","tag":"tree"}',
];

describe('plants list, in-process', () => {
  it('prints NDJSON when stdout is not a terminal', async () => {
    expect(await list()).toEqual({ code: 0, stdout: `${NDJSON.join('\n')}\n`, stderr: '' });
  });

  it('prints a table when stdout is a terminal (its header bold), NDJSON there with --json', async () => {
    const table = await list({}, { stdoutIsTerminal: true, columns: 80 });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(`\u001b[1m${'ID'.padStart(19)}  NAME  TAG\u001b[22m`);
    expect(lines[3]).toMatch(/^9223372036854775807 +Max +tree$/);
    expect(await list({ json: true }, { stdoutIsTerminal: true })).toEqual({
      code: 0,
      stdout: `${NDJSON.join('\n')}\n`,
      stderr: '',
    });
  });

  it('one page of --limit says on stderr how to get the rest; --after the next page; --all every page', async () => {
    expect(await list({ limit: 2 })).toEqual({
      code: 0,
      stdout: `${NDJSON.slice(0, 2).join('\n')}\n`,
      stderr: 'More plants: --all lists every page, --after 2 the next one.\n',
    });
    expect(await list({ limit: 2, after: '2' })).toEqual({ code: 0, stdout: `${NDJSON[2]}\n`, stderr: '' });
    expect(await list({ limit: 1, all: true })).toEqual({ code: 0, stdout: `${NDJSON.join('\n')}\n`, stderr: '' });
  });

  it('an empty store: nothing on stdout when piped, "No plants." on stderr on a terminal', async () => {
    expect(await list({}, {}, empty)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await list({}, { stdoutIsTerminal: true }, empty)).toEqual({ code: 0, stdout: '', stderr: 'No plants.\n' });
  });

  it('an --after that is not an int64 is exit 2', async () => {
    const result = await list({ after: 'abc' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^plants: invalid id: .*\(got "abc"\)\n$/);
  });
});
