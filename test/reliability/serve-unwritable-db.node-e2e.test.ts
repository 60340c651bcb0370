import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { makeUnwritable } from '../helpers/unwritable.js';

/**
 * Regression test, fixed (found while adding CLI-level fault tests): `plants serve --db FILE` where FILE
 * is a plants database that cannot be written (here `chattr +i`, which stops root too; for a
 * normal user a `chmod 0444` file behaves the same) starts anyway: SQLite quietly opens the
 * file read-only, SqlitePlantStore.open (src/server/stores/sqlite/sqlite-plant-store.ts) does not notice, the banner is printed,
 * and every POST /plants is answered 500 ("internal error: SqliteError: attempt to write a
 * readonly database" in the log). The README promises: "A database file that cannot be used
 * (... in a folder that cannot be written) ... is refused at start with exit 2". Expected:
 * exit 2 with a message naming the file, the file unchanged.
 */

const TOKEN = `ro-${randomBytes(9).toString('base64url')}`;
let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir('plants-unwritable-');
});
afterAll(() => temp?.remove());

describe('plants serve on a database file it cannot write', () => {
  it('refuses to start (exit 2), naming the file, and leaves it unchanged', async ({ skip }) => {
    const database = path.join(temp.dir, 'plants.db');
    const first = await startServeProcess(['--port', '0', '--db', database, '--token', TOKEN, '--quiet']);
    await first.waitForStderr('Ctrl-C stops the server');
    expect(await first.stop('SIGTERM')).toBe(0);
    const bytes = readFileSync(database);

    const sealed = makeUnwritable(database);
    if (sealed === undefined) return skip('this machine cannot make a file unwritable for root');
    try {
      // Observed: it starts and serves 500s; runCli's time-out ends it with SIGKILL.
      const result = await runCli(['serve', '--port', '0', '--db', database, '--token', TOKEN], { timeoutMs: 5000 });
      expect(result.code, `stdout ${JSON.stringify(result.stdout)} stderr ${JSON.stringify(result.stderr)}`).toBe(2);
      expect(result.stderr).toContain(database);
      expect(readFileSync(database).equals(bytes)).toBe(true);
    } finally {
      sealed.restore();
    }
  }, 30_000);
});
