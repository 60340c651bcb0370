import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Config, Parser } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { findRoute, parseArgv } from '../../src/entry/parse-argv.js';
import type { CommandRoute, FlagRoute, RouteTable } from '../../src/entry/route-table.js';
import { projectRoot } from '../helpers/cli.js';

// The fast route parses with the table the build derives from the commands' oclif declarations
// (dist/entry/routes.json, what bin/run.js reads). Every command and every flag of oclif's
// manifest goes through both parsers here: what the fast route takes, it must parse exactly as
// oclif does; what it cannot be sure of, it leaves to oclif (undefined).
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { aliases: string[]; flags: Record<string, { type: string }> }>;
};
const table = JSON.parse(readFileSync(path.join(projectRoot, 'dist', 'entry', 'routes.json'), 'utf8')) as RouteTable;
let config: Config;
const classes = new Map<string, Command.Class>();
beforeAll(async () => {
  config = await Config.load({ root: projectRoot });
  for (const id of Object.keys(manifest.commands)) {
    const command = config.findCommand(id);
    if (command !== undefined) classes.set(id, await command.load());
  }
});

/** What oclif's own parser makes of argv for command `id`, or the error it throws. */
async function oclifParse(id: string, argv: string[]) {
  const command = classes.get(id) as Command.Class;
  try {
    const { flags, args } = await Parser.parse(argv, {
      flags: command.flags,
      args: command.args,
      strict: command.strict,
      context: { config } as never,
    });
    return { flags, args };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A value oclif takes for the flag, by how the route reads it. */
function sampleValue(flag: FlagRoute): string {
  if (flag.options !== undefined) return flag.options.at(-1) as string;
  if (flag.read === 'integer') return String(flag.max ?? flag.min ?? 7);
  if (flag.read === 'seconds') return '2.5';
  if (flag.read === 'faultSeed') return '42';
  return 'some-value';
}

/** The arguments every required arg needs, and the flags a flag depends on. */
function around(route: CommandRoute, name: string): string[] {
  const words = route.args.filter((arg) => arg.required).map(() => '9223372036854775807');
  for (const needed of route.flags[name]?.dependsOn ?? []) {
    const flag = route.flags[needed] as FlagRoute;
    words.push(`--${needed}`, ...(flag.type === 'option' ? [sampleValue(flag)] : []));
  }
  return words;
}

const commandIds = Object.keys(manifest.commands);
const routed = (id: string) => Object.values(table.commands).find((route) => route.id === id);

describe('the route table', () => {
  it('has every command of the manifest whose declaration names its action, under its id and aliases', () => {
    for (const id of commandIds) {
      const route = routed(id);
      if (route === undefined) continue;
      for (const name of [id, ...(manifest.commands[id]?.aliases ?? [])]) {
        expect(table.commands[name.split(':').join(' ')]).toEqual(route);
      }
      expect(Object.keys(route.flags).sort()).toEqual(Object.keys(manifest.commands[id]?.flags ?? {}).sort());
    }
    // The store commands and serve take the fast route; help and autocomplete are oclif's.
    expect(commandIds.filter((id) => routed(id) !== undefined).sort()).toEqual(
      ['add', 'delete', 'get', 'list', 'login', 'logout', 'reset', 'serve', 'status'].sort(),
    );
  });
});

describe('every flag of every routed command parses as oclif parses it', () => {
  const cases = commandIds.flatMap((id) => {
    const route = Object.values(table.commands).find((candidate) => candidate.id === id);
    if (route === undefined) return [];
    const flagCases = Object.entries(route.flags).flatMap(([name, flag]) => {
      const spellings: string[][] =
        flag.type === 'boolean'
          ? [[`--${name}`], ...(flag.char ? [[`-${flag.char}`]] : []), ...(flag.allowNo ? [[`--no-${name}`]] : [])]
          : [
              [`--${name}`, sampleValue(flag)],
              [`--${name}=${sampleValue(flag)}`],
              ...(flag.char ? [[`-${flag.char}`, sampleValue(flag)], [`-${flag.char}${sampleValue(flag)}`]] : []),
              ...(flag.multiple ? [[`--${name}`, 'one', `--${name}`, 'two']] : []),
            ];
      return spellings.map((words) => [id, [...words, ...around(route, name)]] as const);
    });
    const bare = [[id, around(route, '')] as const];
    return [...bare, ...flagCases];
  });

  it.each(cases)('%s %j: taken, and parsed as oclif does', async (id, argv) => {
    const found = findRoute(table, [...id.split(':'), ...argv]);
    const fast = found === undefined ? undefined : parseArgv(found.route, found.rest);
    const oclif = await oclifParse(id, [...argv]);
    expect(oclif).not.toHaveProperty('error');
    // Flags whose value only their declaration can read (none today) would rightly go to oclif.
    expect(fast).toEqual({ id, action: found?.route.action, ...oclif });
  });
});

describe('what oclif refuses, the fast route leaves to it', () => {
  const cases = commandIds.flatMap((id) => {
    const route = Object.values(table.commands).find((candidate) => candidate.id === id);
    if (route === undefined) return [];
    const base = around(route, '');
    const perFlag = Object.entries(route.flags).flatMap(([name, flag]) => [
      ...(flag.type === 'option' ? [[`--${name}`]] : [[`--${name}=yes`]]),
      ...(flag.multiple ? [] : [[`--${name}`, ...(flag.type === 'option' ? [sampleValue(flag)] : []), `--${name}`]]),
      ...(flag.read === 'integer'
        ? [
            [`--${name}`, String((flag.max ?? 0) + 1)],
            [`--${name}`, 'x'],
          ]
        : []),
      ...(flag.options ? [[`--${name}`, 'not-an-option']] : []),
      ...(flag.exclusive ?? []).map((other) => [
        `--${name}`,
        ...(flag.type === 'option' ? [sampleValue(flag)] : []),
        `--${other}`,
        ...(route.flags[other]?.type === 'option' ? [sampleValue(route.flags[other] as FlagRoute)] : []),
      ]),
    ]);
    return [
      ...perFlag.map((words) => [id, [...words, ...base]] as const),
      [id, [...base, '--not-a-flag']] as const,
      [id, [...base, 'stray', 'words', 'here']] as const,
      [id, ['--', ...base]] as const,
      ...(route.args.some((arg) => arg.required) ? [[id, []] as const] : []),
    ];
  });

  it.each(cases)('%s %j', async (id, argv) => {
    const found = findRoute(table, [...id.split(':'), ...argv]);
    const fast = found === undefined ? undefined : parseArgv(found.route, found.rest);
    const oclif = await oclifParse(id, [...argv]);
    // What oclif refuses is never taken (oclif then says why); what is taken is parsed the same.
    if ('error' in oclif) expect(fast).toBeUndefined();
    else if (fast !== undefined) expect(fast).toEqual({ id, ...oclif });
  });
});
