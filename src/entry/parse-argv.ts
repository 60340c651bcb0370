import { flagValueReaders } from '../cli/flag-values.js';
import type { CommandRoute, FlagRoute, RouteTable } from './route-table.js';

/** A command line as its command's declaration reads it, with the name of its action. */
export interface ParsedCommand {
  id: string;
  action?: string;
  flags: Record<string, unknown>;
  args: Record<string, string | undefined>;
  /** Every argument, in order, for a command that is not strict (`help`). */
  argv: string[];
}

/** Why a command line does not fit its command's declaration (worded by usage-error.ts). */
export type Misuse =
  | { kind: 'unknown-flags'; flags: string[] }
  | { kind: 'repeated-flag'; flag: string }
  | { kind: 'needs-value'; flag: string }
  | { kind: 'not-an-option'; flag: string; input: string }
  | { kind: 'bad-value'; flag: string; input: string }
  | { kind: 'arg-not-an-option'; arg: string; input: string }
  | { kind: 'unexpected-args'; args: string[] }
  | { kind: 'missing-args'; args: string[] }
  | { kind: 'flag-relations'; relations: FlagRelation[] };

export type FlagRelation =
  | { kind: 'required'; flag: string }
  | { kind: 'exclusive'; flag: string; other: string }
  | { kind: 'depends'; flag: string; on: string[] };

/** The route of a command line's first words (`plant add` before `plant`; `autocomplete:script` too), and the rest. */
export function findRoute(
  table: RouteTable,
  line: readonly string[],
): { route: CommandRoute; rest: string[] } | undefined {
  const argv = line[0]?.includes(':') ? [...line[0].split(':'), ...line.slice(1)] : line;
  for (const words of [2, 1]) {
    const key = argv.slice(0, words).join(' ');
    const route = argv.length >= words && Object.hasOwn(table.commands, key) ? table.commands[key] : undefined;
    if (route !== undefined) return { route, rest: argv.slice(words) };
  }
  return undefined;
}

/**
 * The one parser: a command line read as its oclif declaration says, checked in oclif's order so
 * that the fault named first is oclif's: a flag repeated or without its value; bad values; unknown
 * flags, stray words, missing arguments; then flags that exclude or need one another.
 */
export function parseArgv(route: CommandRoute, argv: readonly string[]): ParsedCommand | { misuse: Misuse } {
  const lexed = lex(route, argv);
  if ('misuse' in lexed) return lexed;
  const { tokens, words, unknown } = lexed;
  const args: Record<string, string | undefined> = {};
  for (const [index, arg] of route.args.entries()) {
    const input = words[index];
    if (input === undefined) continue;
    if (arg.options !== undefined && !arg.options.includes(input)) {
      return { misuse: { kind: 'arg-not-an-option', arg: arg.name, input } };
    }
    args[arg.name] = input;
  }
  const read = readFlags(route, tokens);
  if ('misuse' in read) return read;
  if (unknown.length > 0) return { misuse: { kind: 'unknown-flags', flags: unknown } };
  if (route.strict && words.length > route.args.length) {
    return { misuse: { kind: 'unexpected-args', args: words.slice(route.args.length) } };
  }
  const missing = route.args.filter((arg) => arg.required && args[arg.name] === undefined).map((arg) => arg.name);
  if (missing.length > 0) return { misuse: { kind: 'missing-args', args: missing } };
  const relations = flagRelations(route, read.flags, new Set(tokens.map((token) => token.flag)));
  if (relations.length > 0) return { misuse: { kind: 'flag-relations', relations } };
  const action = route.action === undefined ? {} : { action: route.action };
  return { id: route.id, ...action, flags: read.flags, args, argv: words };
}

interface Lexed {
  /** Each flag given, in order, with its word (a boolean) or its value. */
  tokens: { flag: string; input: string }[];
  words: string[];
  unknown: string[];
}

/** The words of a command line as oclif's lexer tells them. */
function lex(route: CommandRoute, argv: readonly string[]): Lexed | { misuse: Misuse } {
  const queue = [...argv];
  const lexed: Lexed = { tokens: [], words: [], unknown: [] };
  let current: { name: string; flag: FlagRoute } | undefined;
  let parsingFlags = true;
  // true: a flag (and its value) taken; false: no flag by that name.
  const takeFlag = (word: string): boolean | { misuse: Misuse } => {
    const found = flagNamed(route, word);
    if (found === undefined) {
      const equals = word.indexOf('=');
      if (equals === -1) return false;
      queue.unshift(word.slice(equals + 1));
      const taken = takeFlag(word.slice(0, equals));
      if (taken === false) queue.shift();
      return taken;
    }
    const { name, flag, long } = found;
    if (flag.type === 'boolean') {
      lexed.tokens.push({ flag: name, input: word });
      // Short flags given together (`-yq`): the rest are read as flags of their own.
      if (!long && word.length > 2) queue.unshift(`-${word.slice(2)}`);
      return true;
    }
    if (!flag.multiple && lexed.tokens.some((token) => token.flag === name)) {
      return { misuse: { kind: 'repeated-flag', flag: name } };
    }
    current = { name, flag };
    const input = long || word.length < 3 ? queue.shift() : word.slice(word[2] === '=' ? 3 : 2);
    if (input === undefined || flagNamed(route, input) !== undefined) {
      return { misuse: { kind: 'needs-value', flag: name } };
    }
    lexed.tokens.push({ flag: name, input });
    return true;
  };
  while (queue.length > 0) {
    const word = queue.shift() as string;
    if (parsingFlags && word.startsWith('-') && word !== '-') {
      if (word === '--') {
        parsingFlags = false;
        continue;
      }
      const taken = takeFlag(word);
      if (taken !== false && taken !== true) return taken;
      if (taken) continue;
      if (!/^-\d/.test(word)) {
        lexed.unknown.push(word);
        continue;
      }
    }
    if (parsingFlags && current?.flag.greedy) lexed.tokens.push({ flag: current.name, input: word });
    else lexed.words.push(word);
  }
  return lexed;
}

/** The flag a word names (`--name`, `--no-name` when allowed, `-c`). */
function flagNamed(route: CommandRoute, word: string): { name: string; flag: FlagRoute; long: boolean } | undefined {
  if (word.startsWith('--')) {
    const long = word.slice(2);
    if (Object.hasOwn(route.flags, long)) return { name: long, flag: route.flags[long] as FlagRoute, long: true };
    const negated = word.startsWith('--no-') ? word.slice(5) : undefined;
    const flag = negated !== undefined && Object.hasOwn(route.flags, negated) ? route.flags[negated] : undefined;
    return flag?.type === 'boolean' && flag.allowNo ? { name: negated as string, flag, long: true } : undefined;
  }
  if (!word.startsWith('-') || word.length < 2) return undefined;
  for (const [name, flag] of Object.entries(route.flags)) {
    if (flag.char === word[1]) return { name, flag, long: false };
  }
  return undefined;
}

/** Each flag's value (the last word of a boolean, every value of a multiple), or its default; the first value refused. */
function readFlags(
  route: CommandRoute,
  tokens: Lexed['tokens'],
): { flags: Record<string, unknown> } | { misuse: Misuse } {
  const flags: Record<string, unknown> = {};
  let refused: Misuse | undefined;
  for (const [name, flag] of Object.entries(route.flags)) {
    const inputs = tokens.filter((token) => token.flag === name).map((token) => token.input);
    if (inputs.length === 0) {
      if (flag.default !== undefined) flags[name] = flag.default;
      continue;
    }
    if (flag.type === 'boolean') {
      flags[name] = inputs.at(-1) !== `--no-${name}`;
      continue;
    }
    const values: unknown[] = [];
    for (const input of inputs) {
      // oclif checks options before it reads a value: a value not among them is named first.
      if (flag.options !== undefined && !flag.options.includes(input)) {
        return { misuse: { kind: 'not-an-option', flag: name, input } };
      }
      const value = readValue(flag, input);
      if (value === undefined) refused ??= { kind: 'bad-value', flag: name, input };
      values.push(value);
    }
    flags[name] = flag.multiple ? values : values[0];
  }
  return refused === undefined ? { flags } : { misuse: refused };
}

function readValue(flag: FlagRoute, input: string): unknown {
  switch (flag.read) {
    case undefined:
    case 'string':
      return input;
    case 'integer': {
      if (!/^-?\d+$/.test(input)) return undefined;
      const number = Number.parseInt(input, 10);
      const within = (flag.min === undefined || number >= flag.min) && (flag.max === undefined || number <= flag.max);
      return within ? number : undefined;
    }
    default:
      return flagValueReaders[flag.read].read(input);
  }
}

/**
 * Flags missing, excluded or needing others, in oclif's order: sorted by oclif's own wording of the
 * reason, which plants never shows. A default counts as given for a dependency, not for an exclusion.
 */
function flagRelations(route: CommandRoute, flags: Record<string, unknown>, given: Set<string>): FlagRelation[] {
  const found: { reason: string; relation: FlagRelation }[] = [];
  for (const [name, flag] of Object.entries(route.flags)) {
    if (flags[name] === undefined) {
      if (flag.required)
        found.push({ reason: `Missing required flag ${name}`, relation: { kind: 'required', flag: name } });
      continue;
    }
    const on = flag.dependsOn ?? [];
    if (on.some((other) => flags[other] === undefined)) {
      const reason = `All of the following must be provided when using --${name}: ${on.map((o) => `--${o}`).join(', ')}`;
      found.push({ reason, relation: { kind: 'depends', flag: name, on } });
    }
    const other = given.has(name) ? flag.exclusive?.find((candidate) => given.has(candidate)) : undefined;
    if (other !== undefined) {
      const reason = `--${other}=${String(flags[other])} cannot also be provided when using --${name}`;
      found.push({ reason, relation: { kind: 'exclusive', flag: name, other } });
    }
  }
  const reasons = [...new Map(found.map((entry) => [entry.reason, entry.relation])).entries()];
  return reasons.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, relation]) => relation);
}
