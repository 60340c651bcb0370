/**
 * What every row shares: where things are, the counts of this run, and the one environment every
 * child process gets. Importing it makes the run's scratch folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasCommand } from './system.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The folder of the bench's own child scripts (load generators, ceilings, floors). */
export const bench = path.join(root, 'bench');
export const cli = path.join(root, 'bin', 'run.js');
export const node = process.execPath;
export const quick = process.env.BENCH_QUICK === '1';

/** Every count and duration of the run, in one place. */
export const plan = quick
  ? {
      startupRuns: 7,
      startupWarmup: 2,
      callgrindRuns: 1,
      bulkRecords: 20_000,
      bulkRuns: 1,
      wrkSeconds: 3,
      rssRecords: 50_000,
      rerunRecords: 20_000,
      rerunRuns: 1,
      listRecords: 20_000,
      listRuns: 1,
      serverRuns: 1,
      serverSeconds: 3,
      warmupSeconds: 1,
      peers: false,
    }
  : {
      startupRuns: 20,
      startupWarmup: 3,
      callgrindRuns: 3,
      bulkRecords: 100_000,
      bulkRuns: 3,
      wrkSeconds: 8,
      rssRecords: 1_000_000,
      rerunRecords: 1_000_000,
      rerunRuns: 1,
      listRecords: 100_000,
      listRuns: 3,
      serverRuns: 3,
      serverSeconds: 8,
      warmupSeconds: 2,
      peers: true,
    };

// BENCH_CALLGRIND_RUNS: how many callgrind counts each median is of (3 by default, 1 quick).
const callgrindRuns = Number.parseInt(process.env.BENCH_CALLGRIND_RUNS ?? '', 10);
if (callgrindRuns > 0) plan.callgrindRuns = callgrindRuns;

export const cores = os.cpus().length;
/** Pin the server under test to cpu 0 and its load generator or client to cpu 1 (taskset). */
export const pin = process.env.BENCH_PIN !== '0' && cores >= 2 && hasCommand('taskset');
/** The cpu for a server under test, or for whatever loads it; undefined when not pinning. */
export const serverCpu = pin ? 0 : undefined;
export const clientCpu = pin ? 1 : undefined;

export const token = `bench-${randomBytes(12).toString('hex')}`;
export const work = mkdtempSync(path.join(os.tmpdir(), 'plants-bench-'));
const configDir = path.join(work, 'config');
mkdirSync(configDir, { mode: 0o700 });

/** The environment of every child: no proxy (everything stays on 127.0.0.1), a config folder of our own. */
export const childEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? work,
  PLANTS_CONFIG_DIR: configDir,
  PLANTS_DATA_DIR: path.join(work, 'data'),
  PLANTS_TOKEN: token,
  NO_COLOR: '1',
  NO_PROXY: '127.0.0.1,localhost',
  no_proxy: '127.0.0.1,localhost',
};
