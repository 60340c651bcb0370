import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStore } from '../../helpers/store-server.js';
import { runCliInTty } from '../../helpers/tty.js';
import { useTempUser } from '../../helpers/user.js';

// When plants colours its output: on a terminal, unless NO_COLOR (non-empty) or TERM=dumb;
// anywhere, pipes included, with FORCE_COLOR (other than 0 or false), which wins over both.
const store = useTestStore();
const user = useTempUser(store);
beforeAll(async () => {
  const added = await user.run(['add', '--id', '1', '--name', 'Fern', '--tag', 'herb']);
  expect(added.code).toBe(0);
});

const escapeCode = '\u001b[';
const bold = '\u001b[1mid\u001b[22m';

describe('colour', () => {
  it('is off in a pipe, and on with FORCE_COLOR (on stdout and on stderr)', async () => {
    expect((await user.run(['get', '1'])).stdout).not.toContain(escapeCode);
    for (const value of ['1', 'true', '3']) {
      const forced = await user.run(['get', '1'], { env: { FORCE_COLOR: value } });
      expect(forced.stdout, value).toContain(bold);
      const failed = await user.run(['get', '404'], { env: { FORCE_COLOR: value } });
      expect(failed.stderr, value).toContain('\u001b[31mplants:\u001b[39m');
    }
    for (const value of ['0', 'false', '']) {
      const off = await user.run(['get', '1'], { env: { FORCE_COLOR: value } });
      expect(off.stdout, JSON.stringify(value)).not.toContain(escapeCode);
    }
  });

  it('FORCE_COLOR wins over NO_COLOR and TERM=dumb', async () => {
    const forced = await user.run(['get', '1'], { env: { FORCE_COLOR: '1', NO_COLOR: '1', TERM: 'dumb' } });
    expect(forced.stdout).toContain(bold);
  });

  it('is on at a terminal, off with TERM=dumb or a non-empty NO_COLOR; NO_COLOR="" changes nothing', async () => {
    const terminal = runCliInTty(['get', '1'], user.env);
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen).toContain(bold);
    for (const extra of [{ TERM: 'dumb' }, { NO_COLOR: '1' }] as Record<string, string>[]) {
      const plain = runCliInTty(['get', '1'], { ...user.env, ...extra });
      expect(await plain.exited).toBe(0);
      expect(plain.screen, JSON.stringify(extra)).toContain('id    1');
      expect(plain.screen, JSON.stringify(extra)).not.toContain(escapeCode);
    }
    const empty = runCliInTty(['get', '1'], { ...user.env, NO_COLOR: '' });
    expect(await empty.exited).toBe(0);
    expect(empty.screen).toContain(bold);
  });
});
