import type { Misuse } from '../../entry/parse-argv.js';
import type { CommandRoute, FlagRoute } from '../../entry/route-table.js';
import { InvalidInputError } from '../../errors.js';
import { flagValueReaders } from '../flag-values.js';
import { maskWords, secretWords } from '../secrets.js';
import { closestCommand } from './suggest.js';

/**
 * A command line the one parser refused, as one sentence in plants' voice with its hints. Never a
 * word that may be a token (`--tokne=T`, a stray word): those are masked (secrets.ts).
 */
export function usageError(
  misuse: Misuse,
  route: CommandRoute,
  argv: readonly string[],
  known: Parameters<typeof secretWords>[1],
) {
  const [message = '', ...hints] = sentence(misuse, route, argv);
  return new InvalidInputError(maskWords(message, secretWords(argv, known)), {
    hints: [...hints, `See \`plants ${route.id.replaceAll(':', ' ')} --help\`.`],
  });
}

/** `plants get ID` */
export function usageLine(route: CommandRoute): string {
  const args = route.args.map((arg) => (arg.required ? arg.name.toUpperCase() : `[${arg.name.toUpperCase()}]`));
  return [`plants ${route.id.replaceAll(':', ' ')}`, ...args].join(' ');
}

function commandName(route: CommandRoute): string {
  return `\`plants ${route.id.replaceAll(':', ' ')}\``;
}

/** `a`, `a and b`, `a, b and c`. */
function list(words: readonly string[], conjunction = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;
}

/** `The id of the plant.` → `the id of the plant`. */
function phrase(description: string | undefined): string {
  const text = (description ?? '').trim().replace(/\.$/, '');
  return text.length > 1 && text[1] === text[1]?.toLowerCase() ? text[0]?.toLowerCase() + text.slice(1) : text;
}

/** `full or normal`; from three on, `one of error, info, debug`, as the help shows them. */
function choices(options: readonly string[]): string {
  return options.length <= 2 ? list(options, 'or') : `one of ${options.join(', ')}`;
}

const numbers = ['no', 'one', 'two', 'three'];

/** Why a stray word was refused, never repeating it: it is often a token typed without --token. */
function unexpectedArgument(route: CommandRoute): string {
  const args = route.args.map((arg) => arg.name.toUpperCase());
  const allRequired = route.args.every((arg) => arg.required);
  const count = numbers[args.length] ?? String(args.length);
  const takes =
    args.length === 0
      ? 'takes no arguments'
      : `takes ${allRequired ? '' : 'at most '}${count} argument${args.length === 1 ? '' : 's'}, ${list(args)}`;
  return `unexpected argument: ${commandName(route)} ${takes}, and a flag's value goes right after it`;
}

/** Never repeated, not even in a suggestion to quote them; nor is a stray word of a command that has one. */
const secretFlags = new Set(['token', 'metrics-token']);

/** A value with spaces given unquoted (`--name Boston Fern`): the flag, and the words that belong together. */
function unquotedValue(
  argv: readonly string[],
  strays: readonly string[],
  route: CommandRoute,
): { flag: string; words: string[] } | undefined {
  const first = strays[0];
  if (first === undefined || Object.keys(route.flags).some((name) => secretFlags.has(name))) return undefined;
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  for (let at = 1; at < words.length; at++) {
    if (words[at] !== first) continue;
    const before = words[at - 1] ?? '';
    const inline = /^--([\w-]+)=(.*)$/s.exec(before);
    const name = inline?.[1] ?? (/^--([\w-]+)$/.exec(words[at - 2] ?? '')?.[1] as string | undefined);
    const value = inline?.[2] ?? before;
    if (name === undefined || route.flags[name]?.type !== 'option' || secretFlags.has(name)) continue;
    if (inline === undefined && value.startsWith('-')) continue;
    const rest: string[] = [];
    for (let next = at; next < words.length && !(words[next] ?? '').startsWith('-'); next++)
      rest.push(words[next] ?? '');
    return { flag: name, words: [value, ...rest] };
  }
  return undefined;
}

function flagValue(flag: FlagRoute | undefined, name: string): string {
  if (flag?.helpValue !== undefined) return flag.helpValue;
  if (flag?.options !== undefined) return flag.options.join('|');
  return name.toUpperCase();
}

function range(flag: FlagRoute | undefined): string {
  const { min, max } = flag ?? {};
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

/** "Did you mean" for unknown flags (`--nmae` → `--name`); only a flag's own name is repeated. */
function flagSuggestions(unknown: readonly string[], route: CommandRoute): string[] {
  return unknown.flatMap((flag) => {
    if (!flag.startsWith('--')) return [];
    const name = flag.slice(2).split('=')[0] ?? '';
    const guess = closestCommand(name, Object.keys(route.flags));
    if (guess === undefined) return [];
    return [
      unknown.length === 1 ? `Did you mean \`--${guess}\`?` : `Did you mean \`--${guess}\` for --${name.slice(0, 40)}?`,
    ];
  });
}

/** The message, then its hints. */
function sentence(misuse: Misuse, route: CommandRoute, argv: readonly string[]): string[] {
  const usage = `Usage: ${usageLine(route)}`;
  const flag = 'flag' in misuse ? route.flags[misuse.flag] : undefined;
  switch (misuse.kind) {
    case 'unknown-flags': {
      const names = misuse.flags.map((word) => (word.split('=')[0] ?? '').slice(0, 40));
      const message = `${commandName(route)} has no flag${names.length === 1 ? '' : 's'} ${list(names)}`;
      return [message, ...flagSuggestions(misuse.flags, route)];
    }
    case 'repeated-flag':
      return [`Flag --${misuse.flag} can only be specified once`];
    case 'needs-value': {
      const value = flag?.options === undefined ? flagValue(flag, misuse.flag) : choices(flag.options);
      return [`--${misuse.flag} needs a value: ${value}`];
    }
    case 'not-an-option':
      return [`--${misuse.flag} must be ${choices(flag?.options ?? [])} (got ${JSON.stringify(misuse.input)})`];
    case 'bad-value': {
      const read = flag?.read;
      const message =
        read === 'integer'
          ? `--${misuse.flag} must be a whole number${range(flag)} (got ${JSON.stringify(misuse.input)})`
          : flagValueReaders[read as keyof typeof flagValueReaders].refused(misuse.flag, misuse.input);
      return [message];
    }
    case 'arg-not-an-option': {
      const options = route.args.find((arg) => arg.name === misuse.arg)?.options ?? [];
      const message = `${misuse.arg.toUpperCase()} must be ${choices(options)} (got ${JSON.stringify(misuse.input)})`;
      return [message, usage];
    }
    case 'unexpected-args': {
      const unquoted = unquotedValue(argv, misuse.args, route);
      if (unquoted === undefined) return [unexpectedArgument(route), usage];
      const value = unquoted.words.join(' ');
      // Double quotes as people type them; single quotes when the shell would read into double ones.
      const quoted = /^[^"$`\\!]*$/.test(value) ? `"${value}"` : `'${value.replaceAll("'", "'\\''")}'`;
      return [
        `unexpected argument: --${unquoted.flag} takes one word as its value, so a value with spaces goes in quotes`,
        `Quote it: --${unquoted.flag} ${quoted}`,
      ];
    }
    case 'missing-args': {
      const named = misuse.args.map((name) => {
        const what = phrase(route.args.find((arg) => arg.name === name)?.description);
        return `${name.toUpperCase()}${what === '' ? '' : `, ${what}`}`;
      });
      return [`${commandName(route)} needs ${list(named)}`, usage];
    }
    case 'flag-relations': {
      const clauses = misuse.relations.map((relation) => {
        if (relation.kind === 'required') {
          return `${commandName(route)} needs --${relation.flag} ${flagValue(route.flags[relation.flag], relation.flag)}`;
        }
        if (relation.kind === 'exclusive') return `--${relation.flag} and --${relation.other} cannot be used together`;
        return `--${relation.flag} needs ${list(relation.on.map((name) => `--${name}`))} as well`;
      });
      return [[...new Set(clauses)].join('; ')];
    }
  }
}
