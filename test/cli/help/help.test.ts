import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, runCli } from '../../helpers/cli.js';
import { runCliInTty } from '../../helpers/tty.js';

// Help and typing as people expect them, through the real CLI.
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { hidden?: boolean; aliases: string[] }>;
};
const visible = Object.entries(manifest.commands)
  .filter(([, command]) => command.hidden !== true)
  .flatMap(([id, command]) => [id, ...command.aliases])
  .map((id): [string, string[]] => [id.replaceAll(':', ' '), id.split(':')]);

describe('help', () => {
  it.each(visible)('`%s -h` is its help, exit 0', async (_name, words) => {
    const result = await runCli([...words, '-h']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('USAGE');
  });

  it('is the same for `plants --help`, `plants -h` and `plants help`, with every topic', async () => {
    const [long, short, command] = await Promise.all([runCli(['--help']), runCli(['-h']), runCli(['help'])]);
    expect([long.code, short.code, command.code]).toEqual([0, 0, 0]);
    expect(short.stdout).toBe(long.stdout);
    expect(command.stdout).toBe(long.stdout);
    for (const topic of ['plant', 'environment', 'exit-codes'])
      expect(long.stdout).toMatch(new RegExp(`^  ${topic} `, 'm'));
  });

  it('suggests the topic meant: `help env` → `plants help environment` (exit 2)', async () => {
    const result = await runCli(['help', 'env']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "plants: no help for 'env': it is neither a command nor a topic\n" +
        '  Did you mean `plants help environment`?\n' +
        '  Run `plants help` for the commands and topics.\n',
    );
  });
});

describe('help for a long typo', () => {
  it.each([
    ['environmen', 'environment'],
    ['exit-code', 'exit-codes'],
  ])('`help %s` echoes the typo and suggests `plants help %s`, nothing masked', async (typo, meant) => {
    const result = await runCli(['help', typo]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `plants: no help for '${typo}': it is neither a command nor a topic\n` +
        `  Did you mean \`plants help ${meant}\`?\n` +
        '  Run `plants help` for the commands and topics.\n',
    );
  });

  it('masks a word shaped as a token, and still suggests in full', async () => {
    const result = await runCli(['help', 'envir0nmentX']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no help for '***'");
    expect(result.stderr).toContain('Did you mean `plants help environment`?');
    expect(result.stderr).not.toContain('envir0nmentX');
  });
});

describe('typing', () => {
  it('suggests the flag meant for a mistyped one (exit 2), nothing sent', async () => {
    const result = await runCli(['add', '--nmae', 'Fern', '--id', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Did you mean `--name`?');
    expect(result.stderr).not.toContain('Fern');
  });

  it('suggests `plant add` for `plant ad` in a script (exit 127), never repeating later words', async () => {
    const result = await runCli(['plant', 'ad', 'secret-value']);
    expect(result.code).toBe(127);
    expect(result.stderr).toBe(
      "plants: 'plant ad' is not a plants command.\n" +
        '  Did you mean `plants plant add`?\n' +
        '  Run `plants help` for a list of commands.\n',
    );
  });

  it('speaks in the plants voice on a terminal too, and runs nothing', async () => {
    const session = runCliInTty(['lsit'], {});
    expect(await session.exited).toBe(127);
    expect(session.screen).toContain("plants: 'lsit' is not a plants command.");
    expect(session.screen).toContain('Did you mean `plants list`?');
    expect(session.screen).not.toContain('Warning');
  });

  it('refuses a word after `serve --token X` instead of taking it for a second token', async () => {
    const result = await runCli(['serve', '--port', '0', '--memory', '--token', 'secret', '4011']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unexpected argument');
  });
});
