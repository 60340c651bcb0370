import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root, work } from './context.js';

/** The commit start-up is compared with (the last before one transport), unless BENCH_BASELINE names another. */
export const baselineCommit = process.env.BENCH_BASELINE ?? 'c5b5327';

/**
 * bin/run.js of the baseline commit, built in a git worktree under the run's scratch folder with
 * the packages of its own lockfile (`npm ci --ignore-scripts`: its start-up loads no native
 * module, and its packages are a major behind this checkout's), so that both are counted in the
 * same run, on the same machine and Node; undefined (and why) when it cannot be built.
 */
export function buildBaseline(): { cli: string } | { error: string } {
  const dir = path.join(work, `baseline-${baselineCommit}`);
  try {
    execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, baselineCommit], { stdio: 'pipe' });
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: 'pipe',
      timeout: 600_000,
    });
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'pipe', timeout: 300_000 });
    const cli = path.join(dir, 'bin', 'run.js');
    return existsSync(cli) ? { cli } : { error: 'no bin/run.js' };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] ?? 'failed' };
  }
}

/** Takes the baseline's worktree away again (the scratch folder goes with the run). */
export function removeBaseline(): void {
  const dir = path.join(work, `baseline-${baselineCommit}`);
  try {
    execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', dir], { stdio: 'pipe' });
  } catch {
    // Already gone.
  }
}
