import { beforeEach, describe, expect, it } from 'vitest';
import { resetStore } from '../../../src/cli/actions/reset-store.js';
import { Reset } from '../../../src/commands/reset.js';
import { parsedFor, runInProcess, type TestStreams, terminalAnswering, testStreams } from '../../helpers/in-process.js';
import { useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';
import { postPlant } from '../../server/http-client.js';

// plants reset in this process, against a real store started with allowReset and a seed.

const server = useTestStore({
  allowReset: true,
  seed: [
    { id: 2n, name: 'Ivy' },
    { id: 9223372036854775807n, name: 'Max', tag: 'tree' },
  ],
});
const user = useTempUser(server);
beforeEach(async () => {
  // A plant the seed lacks: a reset takes it away.
  await postPlant(server.url, server.token, '{"id":5,"name":"Added"}');
});

function reset(flags: { yes?: boolean; json?: boolean } = {}, io: TestStreams = testStreams()) {
  return runInProcess((context) => resetStore(parsedFor(Reset, { flags }), context), {
    env: user.env,
    io,
    json: flags.json,
  });
}

async function storedIds(): Promise<bigint[]> {
  return (await server.readPlants()).map((row) => row.id);
}

const SEEDED = '{"id":2,"name":"Ivy"}\n{"id":9223372036854775807,"name":"Max","tag":"tree"}\n';

describe('plants reset, in-process', () => {
  it('with --yes: the store back to its seed, printed as NDJSON when piped', async () => {
    expect(await reset({ yes: true })).toEqual({
      code: 0,
      stdout: SEEDED,
      stderr: '✓ Reset: the store holds 2 plants now\n',
    });
    expect(await storedIds()).toEqual([2n, 9223372036854775807n]);
  });

  it('without --yes and no terminal: exit 2, nothing sent, the store unchanged', async () => {
    const result = await reset();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'plants: plants reset replaces every plant in the store: give --yes to reset without asking\n  Nothing was sent.\n',
    );
    expect(await storedIds()).toContain(5n);
  });

  it('on a terminal it asks: `n` leaves the store as it is (exit 0)', async () => {
    const result = await reset({}, terminalAnswering('n\r'));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `Reset the store at ${server.url} to its seed? Every plant in it is replaced. [y/N] `,
    );
    expect(result.stderr).toMatch(/Not reset\.\n$/);
    expect(await storedIds()).toContain(5n);
  });

  it('on a terminal it asks: `y` resets it', async () => {
    const result = await reset({ json: true }, terminalAnswering('y\r'));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(SEEDED);
    expect(result.stderr).toContain('Reset: the store holds 2 plants now');
    expect(await storedIds()).toEqual([2n, 9223372036854775807n]);
  });
});
