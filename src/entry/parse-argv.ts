import { flagValueReaders } from '../cli/flag-values.js';
import type { CommandRoute, FlagRoute, RouteTable } from './route-table.js';

/** A command line as oclif's parser gives it to a command, with the name of its action. */
export interface ParsedCommand {
  id: string;
  action: string;
  flags: Record<string, unknown>;
  args: Record<string, string | undefined>;
}

/** The route of a command line's first words (`plant add` before `plant`), and the words after them. */
export function findRoute(
  table: RouteTable,
  argv: readonly string[],
): { route: CommandRoute; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const route = argv.length >= words ? table.commands[argv.slice(0, words).join(' ')] : undefined;
    if (route !== undefined) return { route, rest: argv.slice(words) };
  }
  return undefined;
}

/**
 * The command line parsed as oclif parses it, or undefined for anything oclif should see and
 * answer itself: an unknown, repeated or malformed flag, a value oclif would refuse, `--`, a
 * missing or extra argument, flags that exclude or need one another. Only what is sure to parse
 * the same is taken here; a test runs every flag of every command through both.
 */
export function parseArgv(route: CommandRoute, argv: readonly string[]): ParsedCommand | undefined {
  const given = new Map<string, unknown>();
  const positionals: string[] = [];
  const findFlag = (word: string) => flagNamed(route, word);
  let current: { name: string; flag: FlagRoute } | undefined;
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word === '--') return undefined;
    if (word.startsWith('-') && word !== '-') {
      const found = findFlag(word) ?? (word.includes('=') ? findFlag(word.slice(0, word.indexOf('='))) : undefined);
      if (found === undefined) {
        if (/^-\d/.test(word)) {
          positionals.push(word);
          continue;
        }
        return undefined;
      }
      const { name, flag, negated } = found;
      if (given.has(name) && !(flag.multiple && flag.type === 'option')) return undefined;
      if (flag.type === 'boolean') {
        // `--json=true` and bundled short flags (`-yq`): oclif reads these its own way.
        if (word.includes('=') || (!word.startsWith('--') && word.length > 2)) return undefined;
        given.set(name, !negated);
        continue;
      }
      current = found;
      let input: string | undefined;
      if (word.startsWith('--')) {
        const equals = word.indexOf('=');
        input = equals === -1 ? argv[++index] : word.slice(equals + 1);
      } else {
        input = word.length < 3 ? argv[++index] : word.slice(word[2] === '=' ? 3 : 2);
      }
      if (input === undefined || findFlag(input) !== undefined) return undefined;
      const value = readValue(flag, input);
      if (value === undefined) return undefined;
      given.set(name, flag.multiple ? [...((given.get(name) as unknown[] | undefined) ?? []), value] : value);
      continue;
    }
    if (current?.flag.multiple && current.flag.greedy) {
      const value = readValue(current.flag, word);
      if (value === undefined) return undefined;
      given.set(current.name, [...((given.get(current.name) as unknown[] | undefined) ?? []), value]);
      continue;
    }
    positionals.push(word);
  }
  if (positionals.length > route.args.length) return undefined;
  const args: Record<string, string | undefined> = {};
  for (const [index, arg] of route.args.entries()) {
    if (arg.required && positionals[index] === undefined) return undefined;
    args[arg.name] = positionals[index];
  }
  const flags: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(route.flags)) {
    const value = given.has(name) ? given.get(name) : flag.default;
    if (flag.required && value === undefined) return undefined;
    if (value !== undefined) flags[name] = value;
  }
  for (const [name, flag] of Object.entries(route.flags)) {
    if (given.has(name) && flag.exclusive?.some((other) => given.has(other))) return undefined;
    if (flags[name] !== undefined && flag.dependsOn?.some((other) => flags[other] === undefined)) return undefined;
  }
  return { id: route.id, action: route.action, flags, args };
}

/** The flag a word names, as oclif finds it (`--name`, `--no-name` when allowed, `-c`). */
function flagNamed(route: CommandRoute, word: string): { name: string; flag: FlagRoute; negated: boolean } | undefined {
  if (word.startsWith('--')) {
    const long = word.slice(2);
    const flag = Object.hasOwn(route.flags, long) ? route.flags[long] : undefined;
    if (flag !== undefined) return { name: long, flag, negated: false };
    if (word.startsWith('--no-')) {
      const name = word.slice(5);
      const negatable = Object.hasOwn(route.flags, name) ? route.flags[name] : undefined;
      if (negatable?.allowNo) return { name, flag: negatable, negated: true };
    }
    return undefined;
  }
  if (!word.startsWith('-')) return undefined;
  const char = word[1];
  for (const [name, flag] of Object.entries(route.flags)) {
    if (flag.char !== undefined && flag.char === char) return { name, flag, negated: false };
  }
  return undefined;
}

/** A flag's value as oclif's parse of it would give it; undefined where oclif would refuse it (or only oclif can read it). */
function readValue(flag: FlagRoute, input: string): unknown {
  if (flag.options !== undefined && !flag.options.includes(input)) return undefined;
  switch (flag.read) {
    case undefined:
      return undefined;
    case 'string':
      return input;
    case 'integer': {
      if (!/^-?\d+$/.test(input)) return undefined;
      const number = Number.parseInt(input, 10);
      if ((flag.min !== undefined && number < flag.min) || (flag.max !== undefined && number > flag.max))
        return undefined;
      return number;
    }
    default:
      return flagValueReaders[flag.read](input);
  }
}
