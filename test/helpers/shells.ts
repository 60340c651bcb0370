import { spawnSync } from 'node:child_process';

/** Whether a program is on PATH (a shell the completion tests can drive). */
export function hasProgram(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Whether the tests that drive `name` run: when it is installed, and always in CI (CI=true), where
 * .ci/run installs it, so that a missing shell there fails its tests instead of skipping them.
 */
export function shellTestsRun(name: string): boolean {
  return hasProgram(name) || process.env.CI === 'true';
}

/**
 * What fish offers at the end of `line` (`complete -C`), with only `script` loaded: one
 * `candidate\tdescription` per entry, as fish prints them.
 */
export function completeInFish(script: string, line: string): string[] {
  const result = spawnSync('fish', ['--no-config', '-c', 'source $SCRIPT; complete -C $LINE'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SCRIPT: script, LINE: line },
  });
  if (result.status !== 0 || result.stderr !== '') {
    throw new Error(`fish failed (${result.status}): ${result.stderr}`);
  }
  return result.stdout.split('\n').filter(Boolean);
}
