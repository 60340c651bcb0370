import { describe, expect, it } from 'vitest';
import { showPlant } from '../../../src/cli/actions/show-plant.js';
import { Get } from '../../../src/commands/get.js';
import { parsedFor, runInProcess } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants get in this process: the action over in-memory streams, against a real store on loopback.

const server = useTestStore({
  seed: [
    { id: 1n, name: 'Fern', tag: 'herb' },
    { id: 9223372036854775807n, name: 'Max' },
  ],
});
const user = useTempUser(server);
const tokenless = useTempUser(server, { token: false });

function get(id: string, json = false) {
  return runInProcess((context) => showPlant(parsedFor(Get, { args: { id }, flags: { json } }), context), {
    env: user.env,
    json,
  });
}

describe('plants get, in-process', () => {
  it('prints the plant for a person', async () => {
    expect(await get('1')).toEqual({ code: 0, stdout: 'id    1\nname  Fern\ntag   herb\n', stderr: '' });
  });

  it('with --json prints the body exactly, the largest int64 id in digits', async () => {
    expect(await get('9223372036854775807', true)).toEqual({
      code: 0,
      stdout: '{"id":9223372036854775807,"name":"Max"}\n',
      stderr: '',
    });
  });

  it('a plant the store does not hold is exit 1, said on stderr; with --json the Error on stdout', async () => {
    const human = await get('404');
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^plants: .*404/);
    const json = await get('404', true);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: 404 });
  });

  it('an id that is not an int64 is exit 2 and nothing is sent', async () => {
    const result = await get('1.5');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^plants: invalid id: .*\(got "1\.5"\)\n$/);
  });

  it('without a token the store refuses: exit 4', async () => {
    const result = await runInProcess((context) => showPlant(parsedFor(Get, { args: { id: '1' } }), context), {
      env: tokenless.env,
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^plants: .*401/);
  });
});
