import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.js';
import { completeInBash, completeInFish, shellTestsRun } from '../helpers/shells.js';

// Completion as a user gets it: the real CLI writes the script, the real shell completes with it.
// A shell that is not installed skips its tests (.ci/run installs fish and zsh).
let temp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
beforeAll(() => {
  temp = makeTempDir();
  env = { HOME: temp.dir, XDG_CACHE_HOME: path.join(temp.dir, 'cache'), SHELL: '/bin/bash' };
});
afterAll(() => temp.remove());

describe('plants autocomplete fish', () => {
  let script: string;
  beforeAll(async () => {
    const result = await runCli(['autocomplete', 'script', 'fish'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    script = path.join(temp.dir, 'plants.fish');
    writeFileSync(script, result.stdout);
  });

  it('prints set-up instructions that write the script where fish looks for it', async () => {
    const result = await runCli(['autocomplete', 'fish'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('plants autocomplete script fish > $__fish_config_dir/completions/plants.fish');
  });

  it('is the shell taken from $SHELL when none is named', async () => {
    const result = await runCli(['autocomplete'], { env: { ...env, SHELL: '/usr/bin/fish' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('plants autocomplete script fish');
  });

  describe.runIf(shellTestsRun('fish'))('completing in fish', () => {
    const complete = (line: string) => completeInFish(script, line).map((entry) => entry.split('\t')[0]);

    it('offers the commands and topics, with their summaries', () => {
      const offered = completeInFish(script, 'plants ');
      expect(offered).toContain('add\tAdd a plant, or many from a file.');
      expect(complete('plants ')).toEqual(
        expect.arrayContaining([
          'add',
          'autocomplete',
          'delete',
          'get',
          'help',
          'list',
          'login',
          'logout',
          'plant',
          'reset',
          'serve',
          'status',
        ]),
      );
      expect(complete('plants l')).toEqual(['list', 'login', 'logout']);
      expect(complete('plants plant ')).toEqual(['add', 'delete', 'get', 'list']);
    });

    it("offers a command's own flags, also after flag values and through an alias", () => {
      expect(complete('plants add --')).toEqual(
        expect.arrayContaining(['--id', '--name', '--tag', '--file', '--json', '--help', '--base-url', '--timeout']),
      );
      expect(complete('plants add --')).not.toContain('--yes');
      expect(complete('plants add --id 5 --name Fern --t')).toEqual(['--tag', '--timeout']);
      expect(complete('plants plant add --fi')).toEqual(['--file']);
      expect(complete('plants delete 5 --y')).toEqual(['--yes']);
      expect(complete('plants reset --y')).toEqual(['--yes']);
      expect(complete('plants serve --fa')).toEqual(['--fault', '--fault-seed']);
      expect(complete('plants list --a')).toEqual(['--after', '--all']);
    });

    it("offers a flag's named values, files for a path, and nothing else where a value is free", () => {
      expect(complete('plants serve --durability ')).toEqual(['full', 'normal']);
      const dir = makeTempDir();
      try {
        writeFileSync(path.join(dir.dir, 'plants.ndjson'), '');
        expect(complete(`plants add --file ${dir.dir}/pl`)).toEqual([`${dir.dir}/plants.ndjson`]);
        expect(complete(`plants serve --db ${dir.dir}/`)).toEqual([`${dir.dir}/plants.ndjson`]);
        expect(complete(`plants serve --seed ${dir.dir}/`)).toEqual([`${dir.dir}/plants.ndjson`]);
        // --id takes any number: no files, no commands.
        expect(complete(`plants add --id ${dir.dir}/`)).toEqual([]);
      } finally {
        dir.remove();
      }
    });

    it('offers shells to autocomplete, and commands and topics to help', () => {
      expect(complete('plants autocomplete ')).toEqual(['bash', 'fish', 'powershell', 'zsh']);
      expect(complete('plants help ')).toEqual(expect.arrayContaining(['add', 'plant', 'environment', 'exit-codes']));
      expect(complete('plants help ex')).toEqual(['exit-codes']);
    });

    it('offers no commands after a command', () => {
      expect(complete('plants get ')).toEqual([]);
      expect(complete('plants add --id 5 ')).toEqual([]);
    });
  });
});

describe('plants autocomplete bash', () => {
  let script: string;
  beforeAll(async () => {
    const result = await runCli(['autocomplete', 'script', 'bash'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    script = path.join(temp.dir, 'plants.bash');
    writeFileSync(script, result.stdout);
  });
  const complete = (line: string) => completeInBash(script, line);

  it('prints set-up instructions that write the script where bash-completion looks for it', async () => {
    const result = await runCli(['autocomplete', 'bash'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…} the instructions print, not a template
      'plants autocomplete script bash > "${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/plants"',
    );
  });

  it('offers commands, topics and flags, also through an alias and after flag values', () => {
    expect(complete('plants lo')).toEqual(['login', 'logout']);
    expect(complete('plants plant ')).toEqual(['add', 'delete', 'get', 'list']);
    expect(complete('plants add --fi')).toEqual(['--file']);
    expect(complete('plants delete --')).toContain('--yes');
    expect(complete('plants reset --')).toEqual(expect.arrayContaining(['--yes', '--json', '--base-url']));
    expect(complete('plants serve --fault')).toEqual(['--fault', '--fault-seed']);
    expect(complete('plants add --id 5 --name Fern --t')).toEqual(['--tag', '--timeout']);
    expect(complete('plants plant add --fi')).toEqual(['--file']);
    expect(complete('plants add --')).not.toContain('--yes');
  });

  it("offers a flag's named values, files for a path, and nothing else where a value is free", () => {
    expect(complete('plants serve --durability ')).toEqual(['full', 'normal']);
    expect(complete('plants serve --durability n')).toEqual(['normal']);
    const dir = makeTempDir();
    try {
      writeFileSync(path.join(dir.dir, 'plants.ndjson'), '');
      writeFileSync(path.join(dir.dir, 'with space.json'), '');
      expect(complete(`plants add --file ${dir.dir}/pl`)).toEqual([`${dir.dir}/plants.ndjson`]);
      expect(complete(`plants add -f ${dir.dir}/w`)).toEqual([`${dir.dir}/with space.json`]);
      expect(complete(`plants serve --db ${dir.dir}/`).sort()).toEqual([
        `${dir.dir}/plants.ndjson`,
        `${dir.dir}/with space.json`,
      ]);
      // --id takes any number: no files, no commands.
      expect(complete(`plants add --id ${dir.dir}/`)).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  it('offers shells to autocomplete, and commands and topics to help', () => {
    expect(complete('plants autocomplete ')).toEqual(['bash', 'fish', 'powershell', 'zsh']);
    expect(complete('plants help ')).toEqual(expect.arrayContaining(['add', 'plant', 'environment', 'exit-codes']));
    expect(complete('plants help ex')).toEqual(['exit-codes']);
  });

  it('offers no commands after a command', () => {
    expect(complete('plants get ')).toEqual([]);
    expect(complete('plants add --id 5 ')).toEqual([]);
  });
});

describe('plants autocomplete zsh (the plugin)', () => {
  beforeAll(async () => {
    const result = await runCli(['autocomplete', 'zsh'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('plants autocomplete script zsh');
  });

  it.runIf(shellTestsRun('zsh'))('writes a zsh completion function that zsh parses', () => {
    const folder = path.join(env.XDG_CACHE_HOME ?? '', 'plants', 'autocomplete', 'functions', 'zsh');
    expect(readdirSync(folder)).toEqual(['_plants']);
    const check = spawnSync('zsh', ['-n', path.join(folder, '_plants')], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});

it('refuses a shell it cannot complete for, with exit 2', async () => {
  const result = await runCli(['autocomplete', 'tcsh'], { env });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('bash, zsh, fish, powershell');
  expect(result.stderr).not.toMatch(/\n\s+at /);
});

it('says so when $SHELL names a shell it cannot complete for, with exit 2', async () => {
  const result = await runCli(['autocomplete'], { env: { ...env, SHELL: '/bin/tcsh' } });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('your shell ($SHELL) is tcsh: name one of bash, zsh, fish, powershell');
});
