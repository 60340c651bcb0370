import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';
import { readStoreFile, TEST_TOKEN } from '../helpers/store-server.js';

/**
 * kill -9 of the server in the middle of a burst of adds: every plant that got a 200 must be in
 * the file afterwards, and the file must be a sound SQLite database. The server runs in a child
 * process, from src/server/start.ts bundled by esbuild (dist/ may not be built).
 */

let dir: string;
let removeDir: () => void;
let bundle: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Inside the project (in the git-ignored .vitest-tmp/), so that the bundle finds node_modules
  // as dist/ does: the SQLite driver is native and chosen at run time (stores/sqlite/sqlite-driver.ts).
  mkdirSync(path.join(projectRoot, '.vitest-tmp'), { recursive: true });
  dir = mkdtempSync(path.join(projectRoot, '.vitest-tmp', 'crash-'));
  removeDir = () => rmSync(dir, { recursive: true, force: true });
  bundle = path.join(dir, 'start.mjs');
  await build({
    entryPoints: [path.join(projectRoot, 'src', 'server', 'start.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    packages: 'external',
  });
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  removeDir?.();
});

function startChild(database: string, durability: 'full' | 'normal'): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(projectRoot, 'test', 'server', 'fixtures', 'crash-child.mjs'), bundle, database, durability],
    { env: { PATH: process.env.PATH ?? '', PLANTS_TEST_TOKEN: TEST_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) resolve({ child, url: line });
    });
    child.once('exit', (code, signal) => reject(new Error(`server child exited (${code ?? signal}): ${err}`)));
  });
}

async function burstUntilKilled(url: string, child: ChildProcess, firstId: bigint, killAfterAcks: number) {
  const pool = new Pool(url, { connections: 16 });
  const acked = new Map<bigint, string>();
  let sent = 0;
  let killed = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const worker = async () => {
    // Bounded: at most 5000 requests a round, whatever happens.
    while (!killed && sent < 5000) {
      const id = firstId + BigInt(sent);
      sent += 1;
      const name = `plant-${id}`;
      try {
        const response = await pool.request({
          path: '/plants',
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
          body: `{"id":${id},"name":"${name}"}`,
        });
        const text = await response.body.text();
        if (response.statusCode === 200 && text === `{"id":${id},"name":"${name}"}`) acked.set(id, name);
      } catch {
        // The server died under this request: it was never acknowledged.
      }
      if (!killed && acked.size >= killAfterAcks) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await exited;
  await pool.destroy();
  return { acked, sent };
}

function readBack(database: string): { integrity: unknown; version: unknown; stored: Map<bigint, string> } {
  return readStoreFile(database, (db) => {
    const rows = db.prepare<[], { id: bigint; name: string }>('SELECT id, name FROM plants').all();
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      version: db.pragma('user_version', { simple: true }),
      stored: new Map(rows.map((row) => [row.id, row.name])),
    };
  });
}

describe('kill -9 in the middle of a burst of adds', () => {
  it.each(['full', 'normal'] as const)('loses no acknowledged plant with durability %s', async (durability) => {
    const database = path.join(dir, `${durability}.db`);
    const acked = new Map<bigint, string>();
    // Three rounds on one file: each restart also recovers the WAL the last kill left behind.
    for (let round = 0; round < 3; round++) {
      const { child, url } = await startChild(database, durability);
      // Ids past 2^53 so that a rounded id could not pass for the right one.
      const result = await burstUntilKilled(url, child, 2n ** 60n + BigInt(round) * 10_000n, 100);
      expect(child.signalCode).toBe('SIGKILL');
      expect(result.acked.size).toBeGreaterThanOrEqual(100);
      // Killed mid-burst: more requests were sent than acknowledged.
      expect(result.sent).toBeGreaterThan(result.acked.size);
      for (const [id, name] of result.acked) acked.set(id, name);

      const { integrity, version, stored } = readBack(database);
      expect(integrity).toBe('ok');
      expect(version).toBe(1n);
      expect([...acked].filter(([id, name]) => stored.get(id) !== name)).toEqual([]);
    }
  });
});
