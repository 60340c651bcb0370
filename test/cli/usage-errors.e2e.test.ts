import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';
import { useTempUser } from '../helpers/user.js';

// Every usage error of every command reads as one `plants: …` sentence naming the argument or
// flag at fault, with exit 2 (README, Exit codes), never oclif's own texts. The cases come from
// oclif.manifest.json, so a new command, argument or flag is covered as soon as it exists; a new
// flag that takes a value must be placed in `badValues` below (the test says so).

interface ManifestFlag {
  name: string;
  type: 'option' | 'boolean';
  hidden?: boolean;
  required?: boolean;
  options?: string[];
  exclusive?: string[];
  dependsOn?: string[];
  multiple?: boolean;
}
interface ManifestCommand {
  id: string;
  hidden?: boolean;
  strict?: boolean;
  args: Record<string, { name: string; required?: boolean; options?: string[] }>;
  flags: Record<string, ManifestFlag>;
}

const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};
const commands = Object.values(manifest.commands).filter((command) => command.hidden !== true);

/**
 * For each flag that takes a value: a value its parser refuses, and the words the sentence must
 * hold; or null where any text gets past the parser (the command then checks it, with messages
 * of its own tested where the command is).
 */
const badValues: Record<string, { value: string; says: string } | null> = {
  limit: { value: 'abc', says: '--limit must be a whole number from 1 to 1000 (got "abc")' },
  concurrency: { value: '0', says: '--concurrency must be a whole number from 1 to 256 (got "0")' },
  retries: { value: '11', says: '--retries must be a whole number from 0 to 10 (got "11")' },
  timeout: { value: 'soon', says: '--timeout must be a number of seconds above 0 (got "soon")' },
  port: { value: '99999', says: '--port must be a whole number from 0 to 65535 (got "99999")' },
  durability: { value: 'fast', says: '--durability must be full or normal (got "fast")' },
  'log-format': { value: 'xml', says: '--log-format must be text or json (got "xml")' },
  'log-level': { value: 'loud', says: '--log-level must be one of error, info, debug (got "loud")' },
  id: null,
  name: null,
  tag: null,
  file: null,
  'base-url': null,
  // Checked when the config is opened: an unknown or malformed name (test/config/).
  profile: null,
  after: null,
  token: null,
  host: null,
  db: null,
  database: null,
  'metrics-token': null,
  cors: null,
  'tls-cert': null,
  'tls-key': null,
  'pid-file': null,
  'ca-cert': null,
  // Compiled by jq once parsed, with jq's message (test/cli/runner.test.ts, test/commands/jq.e2e.test.ts).
  jq: null,
  'fault-seed': { value: 'abc', says: '--fault-seed must be a whole number from 0 to 4294967295 (got "abc")' },
  // Checked by serve once parsed, with messages of its own (test/commands/serve-testing.e2e.test.ts).
  delay: null,
  fault: null,
  seed: null,
};

/** A value each flag takes at parse time, to reach the checks between flags. */
const goodValue = (flag: ManifestFlag) =>
  flag.options?.[1] ??
  ({ port: '0', limit: '10', token: 'a-token-long-enough-1234' } as Record<string, string>)[flag.name] ??
  'x.db';

const words = (command: ManifestCommand) => command.id.split(':');
const requiredArgs = (command: ManifestCommand) =>
  Object.values(command.args)
    .filter((arg) => arg.required === true)
    .map(() => '1');

interface Case {
  command: string;
  name: string;
  argv: string[];
  /** What the one sentence after `plants: ` must hold. */
  says: string | RegExp;
}

const cases: Case[] = [];
for (const command of commands) {
  const base = words(command);
  const display = `\`plants ${base.join(' ')}\``;
  const missing = Object.values(command.args).filter((arg) => arg.required === true);
  if (missing.length > 0) {
    cases.push({
      command: command.id,
      name: `${command.id}: a required argument left out`,
      argv: base,
      says: new RegExp(
        `^${escapeRegExp(display)} needs ${missing.map((arg) => arg.name.toUpperCase()).join(' and ')}, `,
      ),
    });
  }
  cases.push({
    command: command.id,
    name: `${command.id} --no-such-flag`,
    argv: [...base, ...requiredArgs(command), '--no-such-flag'],
    says: `${display} has no flag --no-such-flag`,
  });
  for (const [name, arg] of Object.entries(command.args)) {
    if (arg.options === undefined) continue;
    cases.push({
      command: command.id,
      name: `${command.id}: ${name.toUpperCase()} not one of its values`,
      argv: [...base, 'nope'],
      says: `${name.toUpperCase()} must be one of ${arg.options.join(', ')} (got "nope")`,
    });
  }
  if (command.strict !== false) {
    cases.push({
      command: command.id,
      name: `${command.id}: a word too many`,
      argv: [...base, ...Object.values(command.args).map((arg) => arg.options?.[0] ?? '1'), 'stray-word'],
      says: new RegExp(`^unexpected argument: ${escapeRegExp(display)} takes `),
    });
  }
  for (const flag of Object.values(command.flags)) {
    if (flag.hidden === true) continue;
    if (flag.required === true) {
      cases.push({
        command: command.id,
        name: `${command.id}: --${flag.name} left out`,
        argv: [...base, ...requiredArgs(command)],
        says: `${display} needs --${flag.name}`,
      });
    }
    if (flag.type === 'option') {
      cases.push({
        command: command.id,
        name: `${command.id} --${flag.name} without its value`,
        argv: [...base, ...requiredArgs(command), `--${flag.name}`],
        says: new RegExp(`^--${flag.name} needs a value: `),
      });
      const bad = badValues[flag.name];
      if (bad !== null && bad !== undefined) {
        cases.push({
          command: command.id,
          name: `${command.id} --${flag.name} ${bad.value}`,
          argv: [...base, ...requiredArgs(command), `--${flag.name}`, bad.value],
          says: bad.says,
        });
      }
    }
    if (flag.dependsOn !== undefined && flag.dependsOn.length > 0) {
      cases.push({
        command: command.id,
        name: `${command.id} --${flag.name} without ${flag.dependsOn.map((name) => `--${name}`).join(', ')}`,
        argv: [
          ...base,
          ...requiredArgs(command),
          ...(flag.type === 'option' ? [`--${flag.name}`, goodValue(flag)] : [`--${flag.name}`]),
        ],
        says: `--${flag.name} needs ${flag.dependsOn.map((name) => `--${name}`).join(' and ')} as well`,
      });
    }
    for (const other of flag.exclusive ?? []) {
      const second = command.flags[other];
      if (second === undefined || second.hidden === true) continue;
      const give = (f: ManifestFlag) => (f.type === 'option' ? [`--${f.name}`, goodValue(f)] : [`--${f.name}`]);
      cases.push({
        command: command.id,
        name: `${command.id} --${flag.name} with --${other}`,
        argv: [...base, ...requiredArgs(command), ...give(flag), ...give(second)],
        says: `--${flag.name} and --${other} cannot be used together`,
      });
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&');
}

/** README's exit code for bad usage (its table is the contract; failure-table.test.ts reads it the same way). */
function readmeUsageExitCode(): number {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Exit codes'));
  const rows = [...section.matchAll(/^\| (\d+) \| (.*) \|$/gm)].filter(([, , meaning]) =>
    meaning?.startsWith('bad usage or input'),
  );
  expect(rows).toHaveLength(1);
  return Number(rows[0]?.[1]);
}

// Nothing listens here: a usage error must be found before anything is sent.
const user = useTempUser({ url: 'http://127.0.0.1:9' });

describe('usage errors, every command', () => {
  it('places every flag that takes a value in badValues (a value its parser refuses, or null)', () => {
    const unplaced = commands.flatMap((command) =>
      Object.values(command.flags)
        .filter((flag) => flag.type === 'option' && flag.hidden !== true && !(flag.name in badValues))
        .map((flag) => `${command.id} --${flag.name}`),
    );
    expect(unplaced).toEqual([]);
  });

  it('covers every command', () => {
    const covered = new Set(cases.map((c) => c.command));
    expect([...covered].sort()).toEqual(commands.map((command) => command.id).sort());
  });

  it.concurrent.each(cases.map((c) => [c.name, c] as const))('%s', { timeout: 60_000 }, async (_name, c) => {
    const result = await user.run(c.argv, { timeoutMs: 50_000 });
    expect(result.code, result.stderr).toBe(readmeUsageExitCode());
    expect(result.stdout).toBe('');
    const [first = '', ...rest] = result.stderr.trimEnd().split('\n');
    // One sentence on one line, then only indented hints.
    expect(first.startsWith('plants: '), result.stderr).toBe(true);
    const sentence = first.slice('plants: '.length);
    if (typeof c.says === 'string') expect(sentence.startsWith(c.says), result.stderr).toBe(true);
    else expect(sentence).toMatch(c.says);
    for (const line of rest) expect(line).toMatch(/^ {2}\S/);
    expect(rest.at(-1)).toMatch(/^ {2}See `plants .+ --help`\.$/);
    // None of oclif's own texts, and never the stray word.
    expect(result.stderr).not.toMatch(
      /Missing \d|required arg|Nonexistent|Expected |Parsing --|See more help|following errors? occurred|cannot also be provided|stray-word/,
    );
  });
});

describe('a value with spaces given without quotes', () => {
  it.each([
    [['add', '--id', '1', '--name', 'Boston', 'Fern'], '--name "Boston Fern"'],
    [['add', '--id', '1', '--name=Boston', 'Fern', 'Tree', '--tag', 'shade'], '--name "Boston Fern Tree"'],
    [['add', '--id', '1', '--name', 'Fern', '--tag', 'deep', 'shade'], '--tag "deep shade"'],
    [['add', '--id', '1', '--name', 'Cost', '$5'], "--name 'Cost $5'"],
  ])('%j: says to quote it, and how', async (argv, quoted) => {
    const result = await user.run(argv);
    expect(result.code).toBe(readmeUsageExitCode());
    const flag = quoted.split(' ')[0];
    expect(result.stderr).toBe(
      [
        `plants: unexpected argument: ${flag} takes one word as its value, so a value with spaces goes in quotes`,
        `  Quote it: ${quoted}`,
        '  See `plants add --help`.',
        '',
      ].join('\n'),
    );
  });

  it('never repeats the words after a token flag, and a stray word elsewhere is not quoted', async () => {
    const token = await user.run(['login', '--token', 'secret-part-one', 'secret-part-two']);
    expect(token.code).toBe(readmeUsageExitCode());
    expect(token.stderr).not.toMatch(/secret-part|Quote it/);
    // A command that takes a token never quotes a stray word: it may be the token.
    const afterUrl = await user.run(['login', '--base-url', 'http://127.0.0.1:4010', 'secret-part-three']);
    expect(afterUrl.code).toBe(readmeUsageExitCode());
    expect(afterUrl.stderr).not.toMatch(/secret-part|Quote it/);
    const stray = await user.run(['get', '1', 'Fern']);
    expect(stray.stderr.split('\n')[0]).toBe(
      "plants: unexpected argument: `plants get` takes one argument, ID, and a flag's value goes right after it",
    );
    expect(stray.stderr).not.toContain('Fern');
  });
});
