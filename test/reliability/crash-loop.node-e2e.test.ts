import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/cli.js';
import { integrityCheck, reportFigures, SEED, scaled, seededRandom } from '../helpers/reliability.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { readStoredPlants } from '../helpers/store-server.js';

/**
 * Crash loop: `plants serve` (the built CLI, a child process) is killed with SIGKILL again and
 * again in the middle of a concurrent load of adds, and restarted on the same database file.
 * After every cycle the file passes `PRAGMA integrity_check` and holds every plant that was
 * acknowledged with a 200, exactly; the restarted server knows them (409 on a second add).
 * CI: 3 cycles; `npm run test:long`: 200.
 */

const TOKEN = `crash-${randomBytes(12).toString('base64url')}`;
const CYCLES = scaled(3, 200);
let temp: ReturnType<typeof makeTempDir>;
let serve: ServeProcess | undefined;

beforeAll(() => {
  temp = makeTempDir('plants-crash-loop-');
});
afterAll(async () => {
  if (serve !== undefined && serve.child.exitCode === null && serve.child.signalCode === null)
    await serve.stop('SIGKILL');
  temp?.remove();
});

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('kill -9 of plants serve in a loop, under load', () => {
  it(
    `loses no acknowledged plant and keeps the file sound over ${CYCLES} cycles`,
    async () => {
      const dbPath = path.join(temp.dir, 'crash.db');
      const next = seededRandom(SEED);
      /** Every plant ever acknowledged with a 200, by id. */
      const acked = new Map<bigint, string>();
      const sent = new Set<bigint>();
      let nextId = 2n ** 62n;
      const totals = { requests: 0, acknowledged: 0, checked: 0, lost: 0, killedBeforeFirstAck: 0 };

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const durability = cycle % 2 === 0 ? 'full' : 'normal';
        serve = await startServeProcess([
          '--port',
          '0',
          '--db',
          dbPath,
          '--token',
          TOKEN,
          '--quiet',
          '--durability',
          durability,
        ]);
        const running = serve;
        const pool = new Pool(running.url, { connections: 16 });
        const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));

        // The restarted server knows what its predecessor acknowledged.
        const known = [...acked.keys()];
        for (let probe = 0; probe < Math.min(3, known.length); probe++) {
          const id = known[Math.floor(next() * known.length)] as bigint;
          const answer = await pool.request({
            path: '/plants',
            method: 'POST',
            headers,
            body: `{"id":${id},"name":"again"}`,
          });
          totals.requests++;
          expect(answer.statusCode, `cycle ${cycle}: id ${id} after restart`).toBe(409);
          await answer.body.text();
        }

        // Kill after some acknowledgements, or after some time (perhaps before any).
        const byAcks = next() < 0.6;
        const killAfterAcks = 1 + Math.floor(next() * 400);
        const killAfterMs = Math.floor(next() * 300);
        let cycleAcks = 0;
        let killed = false;
        const kill = () => {
          if (killed) return;
          killed = true;
          running.child.kill('SIGKILL');
        };
        const timer = byAcks ? undefined : setTimeout(kill, killAfterMs);
        const worker = async () => {
          for (let sentHere = 0; !killed && sentHere < 2000; sentHere++) {
            const id = nextId++;
            const name = `plant ${id} in cycle ${cycle}`;
            sent.add(id);
            totals.requests++;
            try {
              const answer = await pool.request({
                path: '/plants',
                method: 'POST',
                headers,
                body: `{"id":${id},"name":"${name}"}`,
              });
              const text = await answer.body.text();
              if (answer.statusCode === 200) {
                expect(text).toBe(`{"id":${id},"name":"${name}"}`);
                acked.set(id, name);
                cycleAcks++;
                totals.acknowledged++;
              } else {
                // Only a dying server may fail a request, and never with an answer other than 200.
                expect.fail(`cycle ${cycle}: ${answer.statusCode} ${text}`);
              }
            } catch (error) {
              if (!killed) throw error;
            }
            if (byAcks && cycleAcks >= killAfterAcks) kill();
          }
        };
        await Promise.all(Array.from({ length: 24 }, worker));
        kill();
        clearTimeout(timer);
        await exited;
        await pool.destroy();
        expect(running.child.signalCode, `cycle ${cycle}`).toBe('SIGKILL');
        if (cycleAcks === 0) totals.killedBeforeFirstAck++;

        expect(integrityCheck(dbPath), `cycle ${cycle}`).toBe('ok');
        const stored = new Map(readStoredPlants(dbPath).map((row) => [row.id, row]));
        const lost = [...acked].filter(([id, name]) => stored.get(id)?.name !== name);
        totals.checked += acked.size;
        totals.lost += lost.length;
        expect(lost, `cycle ${cycle} (${durability}): acknowledged but not stored`).toEqual([]);
        // Nothing appears that was never sent (a request cut by the kill may or may not be stored).
        expect([...stored.keys()].filter((id) => !sent.has(id))).toEqual([]);
      }

      // A last start and a graceful stop: the WAL is checkpointed away and everything is there.
      serve = await startServeProcess(['--port', '0', '--db', dbPath, '--token', TOKEN, '--quiet']);
      expect(await serve.stop('SIGTERM')).toBe(0);
      expect(existsSync(`${dbPath}-wal`)).toBe(false);
      expect(integrityCheck(dbPath)).toBe('ok');
      const final = new Map(readStoredPlants(dbPath).map((row) => [row.id, row.name]));
      expect([...acked].filter(([id, name]) => final.get(id) !== name)).toEqual([]);

      reportFigures('crash loop', {
        cycles: CYCLES,
        requests: totals.requests,
        acknowledged: totals.acknowledged,
        'plants checked': totals.checked,
        'killed before the first ack': totals.killedBeforeFirstAck,
        'stored at the end': final.size,
        lost: totals.lost,
      });
    },
    scaled(60_000, 1_200_000),
  );
});
