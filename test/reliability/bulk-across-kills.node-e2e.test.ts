import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { integrityCheck, reportFigures, SEED, scaled, seededRandom } from '../helpers/reliability.js';
import { type ServeProcess, useServeProcesses } from '../helpers/serve-process.js';
import { readStoredPlants } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

/**
 * A bulk add across crashes (issue 15): `plants serve` (SQLite, a child process) is killed with
 * -9 several times while `plants add --file` sends to it, and restarted on the same port and
 * file. Requests cut by a kill are sent again; a 409 on such a retry is settled by reading the
 * plant back. The run must end with exit 0, every record reported added (answered or confirmed),
 * and the store holding exactly the input. CI: 3 kills; `npm run test:long`: 10.
 */

const TOKEN = `kills-${randomBytes(12).toString('base64url')}`;
const KILLS = scaled(3, 10);
const RECORDS = scaled(6_000, 40_000);
const user = useTempUser(undefined, { token: TOKEN });
const serves = useServeProcesses();
let serve: ServeProcess | undefined;

const isAlive = (process: ServeProcess) => process.child.exitCode === null && process.child.signalCode === null;

describe('plants add --file while plants serve is killed with -9 and restarted', () => {
  it(
    `ends with exit 0, every record added or confirmed, the store holding exactly the input (${KILLS} kills)`,
    async () => {
      const dbPath = path.join(user.dir, 'kills.db');
      const next = seededRandom(SEED);
      // Restarted on the same port: one of freePort's, which the kernel never gives a connection
      // meanwhile (a port 0 of the kernel's, it can: the add's own connections take such ports).
      const port = String(await freePort());
      serve = await serves.start(['--port', port, '--db', dbPath, '--token', TOKEN, '--quiet']);
      const first = 3n * 2n ** 61n;
      const input = Array.from({ length: RECORDS }, (_, index) => {
        const id = first + BigInt(index);
        return `{"id":${id},"name":"plant ${index}","tag":"k${index % 7}"}`;
      });
      const adding = user.spawn(['add', '--file', '-', '--retries', '10', '--concurrency', '16'], {
        env: { PLANTS_BASE_URL: serve.url },
        timeoutMs: scaled(240_000, 900_000),
      });
      adding.child.stdin.end(`${input.join('\n')}\n`);
      const resultsSoFar = () => adding.stdout.split('\n').length - 1;

      for (let kill = 0; kill < KILLS; kill++) {
        // Kill once some more results have come (at a random point), while requests are in flight.
        const target = Math.floor(((kill + 0.3 + next() * 0.6) * RECORDS) / (KILLS + 1));
        while (resultsSoFar() < target && adding.child.exitCode === null) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const running = serve;
        if (running === undefined || !isAlive(running)) break;
        expect(await running.stop('SIGKILL')).toBe('SIGKILL');
        // Down for a moment: the client meets refused connections and waits, as it would.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 400)));
        serve = await serves.start(['--port', port, '--db', dbPath, '--token', TOKEN, '--quiet']);
      }

      const { code, stdout, stderr } = await adding.exited;
      expect(code, stderr).toBe(0);
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { line: number; outcome: string; confirmed?: string; attempts?: number });
      expect(lines).toHaveLength(RECORDS);
      expect(lines.map((line) => line.line)).toEqual(input.map((_, index) => index + 1));
      const notAdded = lines.filter((line) => line.outcome !== 'added');
      expect(notAdded).toEqual([]);

      await serve?.stop('SIGTERM');
      expect(integrityCheck(dbPath)).toBe('ok');
      const rows = readStoredPlants(dbPath);
      expect(rows).toHaveLength(RECORDS);
      const expected = input.map((_, index) => ({
        id: first + BigInt(index),
        name: `plant ${index}`,
        tag: `k${index % 7}`,
      }));
      expect(rows.map((row) => ({ id: row.id, name: row.name, tag: row.tag }))).toEqual(expected);

      reportFigures('bulk across kills', {
        kills: KILLS,
        records: RECORDS,
        'sent again': lines.filter((line) => (line.attempts ?? 1) > 1).length,
        'confirmed by reading back': lines.filter((line) => line.confirmed !== undefined).length,
        lost: RECORDS - rows.length,
      });
    },
    scaled(300_000, 1_200_000),
  );
});
