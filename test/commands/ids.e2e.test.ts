import { describe, expect, it } from 'vitest';
import { readStoredPlants, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// One spelling of an id everywhere, the one JSON has: the CLI's flags and arguments and the
// server's URL paths agree (src/schema/int64.ts owns the rule).
const store = useTestStore();
const user = useTempUser(store);

const rule = 'written as JSON writes it (digits and a leading - if negative; no spaces, no +, no leading zeros)';

describe('an id spelled otherwise than JSON spells it', () => {
  it.each([' 61', '61 ', '062', '+63', '--', '6e1'])(
    '%j is refused by add, get and delete (exit 2), nothing sent',
    async (id) => {
      for (const args of [
        ['add', `--id=${id}`, '--name', 'Fern'],
        ['get', '--', id],
        ['delete', '--yes', '--', id],
      ]) {
        const result = await user.run(args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toContain(rule);
      }
      expect(readStoredPlants(store.dbPath)).toEqual([]);
    },
  );

  it.each(['%2061', '062', '+63', '%2B63'])('/plants/%s is a 400 from the server, with the same rule', async (path) => {
    const response = await fetch(`${store.url}/plants/${path}`, {
      headers: { authorization: `Bearer ${store.token}` },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain(rule);
  });

  it('takes the JSON spelling, negative and zero included', async () => {
    for (const id of ['63', '-63', '0']) {
      const result = await user.run(['add', `--id=${id}`, '--name', 'Fern']);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(readStoredPlants(store.dbPath).map((row) => row.id)).toEqual([-63n, 0n, 63n]);
  });
});
