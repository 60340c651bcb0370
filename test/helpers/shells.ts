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

/**
 * What bash offers for `line` (the cursor at its end) with only `script` loaded: the function
 * the script registered with `complete -F` is called as readline would call it, and COMPREPLY
 * is returned. Words are split on spaces, and `=` is a word of its own (as readline's
 * COMP_WORDBREAKS has it); a trailing space starts an empty word.
 */
export function completeInBash(script: string, line: string): string[] {
  const words = line.split(' ').flatMap((word) => (word === '' ? [''] : word.split(/(=)/).filter(Boolean)));
  const result = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      // A template only to write bash's own \${…} expansions as they are.
      `source "$SCRIPT"
spec=$(complete -p plants) || exit 3
fn=\${spec##*-F }; fn=\${fn%% *}
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE=$LINE; COMP_POINT=\${#LINE}
"$fn" plants "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf "%s\\n" "\${COMPREPLY[@]}"`,
      'bash',
      ...words,
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, SCRIPT: script, LINE: line } },
  );
  if (result.status !== 0 || result.stderr !== '') {
    throw new Error(`bash failed (${result.status}): ${result.stderr}`);
  }
  return result.stdout.split('\n').filter(Boolean);
}
