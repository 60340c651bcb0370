import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Config } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OclifContext, Parsed, PlantsCommand } from '../../src/cli/base-command.js';
import { Add } from '../../src/commands/add.js';
import { Autocomplete } from '../../src/commands/autocomplete/index.js';
import { AutocompleteScript } from '../../src/commands/autocomplete/script.js';
import { Delete } from '../../src/commands/delete.js';
import { Get } from '../../src/commands/get.js';
import { List } from '../../src/commands/list.js';
import { Login } from '../../src/commands/login.js';
import { Logout } from '../../src/commands/logout.js';
import { Reset } from '../../src/commands/reset.js';
import { Serve } from '../../src/commands/serve.js';
import { Status } from '../../src/commands/status.js';
import { commandRoute } from '../../src/entry/command-route.js';
import { findRoute, type Misuse, parseArgv } from '../../src/entry/parse-argv.js';
import type { CommandRoute, FlagRoute, RouteTable } from '../../src/entry/route-table.js';
import { projectRoot } from '../helpers/cli.js';

// The one parser reads every command line, in the npm package and the single executable alike,
// from the route table the build derives from the commands' oclif declarations
// (dist/entry/routes.json). Here every flag of every command goes through it, each kind spelled
// every way oclif takes it, and what it refuses is named as oclif would have it: the values
// expected are written from the declarations' kinds, not computed by the parser's own code.
const table = JSON.parse(readFileSync(path.join(projectRoot, 'dist', 'entry', 'routes.json'), 'utf8')) as RouteTable;
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { aliases: string[]; hidden?: boolean }>;
};
const commandIds = Object.keys(manifest.commands);
const routeOf = (id: string) => table.commands[id.split(':').join(' ')] as CommandRoute;

let classes: Map<string, Command.Class>;
beforeAll(async () => {
  const config = await Config.load({ root: projectRoot });
  classes = new Map();
  for (const id of commandIds) {
    const command = config.findCommand(id);
    if (command !== undefined) classes.set(id, await command.load());
  }
});

/** A value the flag takes, and what it is once read, by its declared kind. */
function sample(name: string, flag: FlagRoute): { input: string; value: unknown } {
  if (flag.options !== undefined) return { input: flag.options.at(-1) as string, value: flag.options.at(-1) };
  switch (flag.read) {
    case 'integer': {
      const number = flag.max ?? flag.min ?? 7;
      return { input: String(number), value: number };
    }
    case 'seconds':
      return { input: '2.5', value: 2.5 };
    case 'faultSeed':
      return { input: '42', value: 42 };
    case 'string':
      return { input: `${name}-value`, value: `${name}-value` };
    default:
      throw new Error(`--${name}: a kind this test has no sample for (${flag.read})`);
  }
}

/** Words that satisfy the command: its required arguments, and what a flag depends on. */
function around(route: CommandRoute, name: string): string[] {
  const words = route.args.filter((arg) => arg.required).map(() => '9223372036854775807');
  for (const needed of route.flags[name]?.dependsOn ?? []) {
    const flag = route.flags[needed] as FlagRoute;
    words.push(`--${needed}`, ...(flag.type === 'option' ? [sample(needed, flag).input] : []));
  }
  return words;
}

/** What the parse of `around(route, name)` plus `given` must be: the declaration's defaults for the rest. */
function expected(route: CommandRoute, name: string, given: Record<string, unknown>) {
  const flags: Record<string, unknown> = {};
  for (const [other, flag] of Object.entries(route.flags)) if (flag.default !== undefined) flags[other] = flag.default;
  for (const needed of route.flags[name]?.dependsOn ?? []) {
    const flag = route.flags[needed] as FlagRoute;
    flags[needed] = flag.type === 'boolean' ? true : sample(needed, flag).value;
  }
  const required = route.args.filter((arg) => arg.required);
  const args = Object.fromEntries(required.map((arg) => [arg.name, '9223372036854775807']));
  return { id: route.id, ...(route.action ? { action: route.action } : {}), flags: { ...flags, ...given }, args };
}

function parse(id: string, argv: readonly string[]) {
  const found = findRoute(table, [...id.split(':'), ...argv]);
  if (found === undefined) throw new Error(`no route for ${id}`);
  return parseArgv(found.route, found.rest);
}

function misuseOf(id: string, argv: readonly string[]): Misuse | undefined {
  const parsed = parse(id, argv);
  return 'misuse' in parsed ? parsed.misuse : undefined;
}

/**
 * Each action owns the type of its options; the type checker holds it to its command's
 * declaration here (`npm run typecheck`): what the declaration parses must be what the action takes.
 */
type ActionOf<C extends typeof PlantsCommand> = (parsed: Parsed<C>, context: OclifContext) => unknown;
const actionsTakeTheirDeclarations: [
  ActionOf<typeof Add>,
  ActionOf<typeof Autocomplete>,
  ActionOf<typeof AutocompleteScript>,
  ActionOf<typeof Delete>,
  ActionOf<typeof Get>,
  ActionOf<typeof List>,
  ActionOf<typeof Login>,
  ActionOf<typeof Logout>,
  ActionOf<typeof Reset>,
  ActionOf<typeof Serve>,
  ActionOf<typeof Status>,
] = [
  Add.action,
  Autocomplete.action,
  AutocompleteScript.action,
  Delete.action,
  Get.action,
  List.action,
  Login.action,
  Logout.action,
  Reset.action,
  Serve.action,
  Status.action,
];

describe('the route table', () => {
  it('names the action of every command that runs one, which takes what its declaration parses', () => {
    const named = actionsTakeTheirDeclarations.map((action) => action.name);
    const inTable = new Set(Object.values(table.commands).flatMap((route) => route.action ?? []));
    expect(named.filter((name) => !['setUpCompletion', 'printCompletionScript'].includes(name)).sort()).toEqual(
      [...inTable].map((module) => module.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())).sort(),
    );
  });

  it('is the declarations of every command, under its id and every alias', () => {
    for (const id of commandIds) {
      const declared = classes.get(id) as Command.Class;
      const route = routeOf(id);
      expect(route).toEqual(commandRoute(id, declared, route.action));
      for (const alias of manifest.commands[id]?.aliases ?? [])
        expect(table.commands[alias.split(':').join(' ')]).toEqual(route);
    }
    // The actions of help and autocomplete need oclif's Config: oclif runs them, once the line is read.
    expect(
      Object.values(table.commands)
        .filter((route) => route.action === undefined)
        .map((route) => route.id)
        .sort(),
    ).toEqual(['autocomplete', 'autocomplete:script', 'help']);
    expect(table.topics).toEqual(['plant']);
  });

  it('refuses, at build time, a declaration the parser would not read as oclif does', () => {
    const declared = (flag: object) => ({ flags: { odd: { type: 'option', ...flag } }, args: {} }) as never;
    expect(() => commandRoute('x', declared({ env: 'X' }), 'x')).toThrow(/declares env/);
    expect(() => commandRoute('x', declared({ aliases: ['o'] }), 'x')).toThrow(/declares aliases/);
    expect(() => commandRoute('x', declared({ parse: async (text: string) => text.length }), 'x')).toThrow(
      /function of its own/,
    );
    expect(() => commandRoute('x', declared({ default: async () => 'y' }), 'x')).toThrow(/default/);
  });
});

/** A command, a flag, how it is spelled, and the value it must come out as. */
type Spelling = [id: string, name: string, words: string[], value: unknown];

describe('every flag of every command, each kind spelled every way oclif takes it', () => {
  const cases = commandIds.flatMap((id) => {
    const route = routeOf(id);
    return Object.entries(route.flags).flatMap(([name, flag]): Spelling[] => {
      if (flag.type === 'boolean') {
        return [
          [id, name, [`--${name}`], true],
          ...(flag.char ? [[id, name, [`-${flag.char}`], true]] : []),
          ...(flag.allowNo ? [[id, name, [`--no-${name}`], false]] : []),
          [id, name, [`--${name}`, `--${name}`], true],
        ] as Spelling[];
      }
      const { input, value } = sample(name, flag);
      const one = flag.multiple ? [value] : value;
      return [
        [id, name, [`--${name}`, input], one],
        [id, name, [`--${name}=${input}`], one],
        ...(flag.char
          ? [
              [id, name, [`-${flag.char}`, input], one],
              [id, name, [`-${flag.char}${input}`], one],
              [id, name, [`-${flag.char}=${input}`], one],
            ]
          : []),
        ...(flag.multiple ? [[id, name, [`--${name}`, input, `--${name}`, input], [value, value]]] : []),
      ] as Spelling[];
    });
  });

  it.each(cases)('%s: --%s as %j', (id, name, words, value) => {
    const route = routeOf(id);
    expect(parse(id, [...words, ...around(route, name)])).toMatchObject(expected(route, name, { [name]: value }));
  });

  it.each(commandIds)('%s with nothing given: its defaults', (id) => {
    const route = routeOf(id);
    expect(parse(id, around(route, ''))).toMatchObject(expected(route, '', {}));
  });
});

/** A command line after the command's words, and the kind of misuse it must be. */
type Refusal = [argv: string[], kind: Misuse['kind']];

describe('what the declarations refuse, named as oclif names it', () => {
  const cases = commandIds.flatMap((id) => {
    const route = routeOf(id);
    const base = around(route, '');
    const perFlag = Object.entries(route.flags).flatMap(([name, flag]): Refusal[] => {
      // `--flag=yes` of a boolean: oclif takes `yes` for the next argument.
      const nextArg = route.args[base.length];
      if (flag.type === 'boolean')
        return [[[...base, `--${name}=yes`], nextArg?.options ? 'arg-not-an-option' : 'unexpected-args']];
      const { input } = sample(name, flag);
      return [
        [[...base, `--${name}`], 'needs-value'],
        ...(flag.multiple ? [] : ([[[`--${name}`, input, `--${name}`, input, ...base], 'repeated-flag']] as const)),
        ...(flag.read === 'integer'
          ? ([
              [[`--${name}`, String((flag.max ?? 0) + 1), ...base], 'bad-value'],
              [[`--${name}`, 'x', ...base], 'bad-value'],
            ] as const)
          : []),
        ...(flag.read === 'seconds' || flag.read === 'faultSeed'
          ? ([[[`--${name}`, '-1', ...base], 'bad-value']] as const)
          : []),
        ...(flag.options ? ([[[`--${name}`, 'not-an-option', ...base], 'not-an-option']] as const) : []),
        ...(flag.exclusive ?? [])
          .filter((other) => !route.flags[name]?.dependsOn?.includes(other))
          .map((other): [string[], Misuse['kind']] => [
            [`--${name}`, input, `--${other}`, ...(route.flags[other]?.type === 'option' ? ['v'] : []), ...base],
            'flag-relations',
          ]),
        ...((flag.dependsOn?.length ?? 0) > 0 ? ([[[`--${name}`, input, ...base], 'flag-relations']] as const) : []),
      ] as Refusal[];
    });
    const refusals: Refusal[] = [
      ...perFlag,
      [[...base, '--not-a-flag'], 'unknown-flags'],
      [[...base, '-Z'], 'unknown-flags'],
      ...(route.strict
        ? [[[...route.args.map((arg) => arg.options?.[0] ?? '1'), 'stray', 'words'], 'unexpected-args']]
        : []),
      ...(route.args.some((arg) => arg.required) ? [[[], 'missing-args']] : []),
      ...route.args.filter((arg) => arg.options).map((): Refusal => [['not-a-shell'], 'arg-not-an-option']),
    ] as Refusal[];
    return refusals.map(([argv, kind]) => [id, argv, kind] as const);
  });

  it.each(cases)('%s %j: %s', (id, argv, kind) => {
    expect(misuseOf(id, argv)?.kind).toBe(kind);
  });

  it('in oclif order: a value before an unknown flag, an option before a number, relations sorted as oclif sorts them', () => {
    expect(misuseOf('serve', ['--nope', '--port', 'abc'])).toEqual({ kind: 'bad-value', flag: 'port', input: 'abc' });
    expect(misuseOf('serve', ['--port', 'abc', '--durability', 'fast'])).toEqual({
      kind: 'not-an-option',
      flag: 'durability',
      input: 'fast',
    });
    expect(misuseOf('add', ['--concurrency', 'x', '--retries', 'y'])).toMatchObject({ flag: 'concurrency' });
    expect(misuseOf('add', ['--id', '1', '--id', '2', '--nope'])).toEqual({ kind: 'repeated-flag', flag: 'id' });
    expect(misuseOf('get', ['extra', '--nope'])).toEqual({ kind: 'unknown-flags', flags: ['--nope'] });
    expect(misuseOf('get', ['1', '2', '--timeout', '0'])).toMatchObject({ kind: 'bad-value', flag: 'timeout' });
    expect(misuseOf('serve', ['--db', 'x', '--memory', '--database', 'y'])).toEqual({
      kind: 'flag-relations',
      relations: [
        { kind: 'exclusive', flag: 'memory', other: 'database' },
        { kind: 'exclusive', flag: 'db', other: 'memory' },
      ],
    });
    expect(misuseOf('serve', ['--pid-file', 'p', '--tls-cert', 'c'])).toEqual({
      kind: 'flag-relations',
      relations: [
        { kind: 'depends', flag: 'pid-file', on: ['detach'] },
        { kind: 'depends', flag: 'tls-cert', on: ['tls-key'] },
      ],
    });
  });

  it('reads as oclif does what looks like a flag and is not one', () => {
    // A negative number is an argument; `-` alone is one; a value may start with a dash.
    expect(parse('delete', ['-1'])).toMatchObject({ args: { id: '-1' } });
    expect(parse('get', ['-'])).toMatchObject({ args: { id: '-' } });
    expect(parse('add', ['--name', '-x'])).toMatchObject({ flags: { name: '-x' } });
    // A value that is a flag of the command is no value; short booleans together are each read.
    expect(misuseOf('add', ['--name', '--json'])).toEqual({ kind: 'needs-value', flag: 'name' });
    expect(parse('reset', ['-yy'])).toMatchObject({ flags: { yes: true } });
    expect(misuseOf('reset', ['-yq'])).toEqual({ kind: 'unknown-flags', flags: ['-q'] });
    // Greedy multiple flags take the words after them; non-greedy ones leave them as arguments.
    expect(parse('serve', ['--cors', 'a', 'b', '--quiet'])).toMatchObject({ flags: { cors: ['a', 'b'], quiet: true } });
    expect(misuseOf('serve', ['--fault', 'a', 'b'])).toEqual({ kind: 'unexpected-args', args: ['b'] });
    // `--` ends the flags; oclif's id spelling finds its command.
    expect(misuseOf('logout', ['--', '--json'])).toEqual({ kind: 'unexpected-args', args: ['--json'] });
    expect(findRoute(table, ['autocomplete:script', 'bash'])).toMatchObject({
      route: { id: 'autocomplete:script' },
      rest: ['bash'],
    });
    // help is not strict: its words are its subject.
    expect(parse('help', ['add', 'more'])).toMatchObject({ args: { topic: 'add' }, argv: ['add', 'more'] });
  });
});

describe('one get, five spellings', () => {
  it('parses each to the same command', () => {
    const spellings = [
      ['get', '1', '--json'],
      ['get', '--json', '1'],
      ['get', '1', '--json', '--timeout=5'],
      ['get', '--json', '--', '1'],
      ['get', '1', '--json', '--timeout', '5'],
    ];
    const parsed = spellings.map((argv) => parse('get', argv.slice(1)));
    const route = routeOf('get');
    const plain = expected(route, '', { json: true });
    for (const [index, result] of parsed.entries()) {
      const timeout = index === 2 || index === 4 ? 5 : route.flags.timeout?.default;
      expect(result).toEqual({ ...plain, flags: { ...plain.flags, timeout }, args: { id: '1' }, argv: ['1'] });
    }
  });
});
