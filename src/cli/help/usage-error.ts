/**
 * oclif's usage errors (a missing argument, a stray one, a flag without its value, a value a
 * flag does not take, flags that exclude or need each other) as one sentence in plants' voice,
 * naming the flag or argument and what it takes. oclif's own texts ("Missing 1 required arg:",
 * "Parsing --limit", "The following error occurred:") are read by their shape: its parser's
 * error classes are not exported. A text not recognised is passed on, cleaned to one line.
 */

/** What the sentences need to know of a command: its id and its args and flags as declared. */
export interface UsageCommand {
  id: string;
  args: Record<string, { description?: string | undefined; required?: boolean | undefined }>;
  flags: Record<
    string,
    {
      type: string;
      helpValue?: string | string[] | undefined;
      options?: readonly string[] | undefined;
      min?: number | undefined;
      max?: number | undefined;
      hidden?: boolean | undefined;
    }
  >;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: oclif may colour its reasons.
const ansi = /\u001b\[[0-9;]*m/g;

/** `plants get ID`: the command as typed, with its arguments' names. */
export function usageLine(command: UsageCommand): string {
  const args = Object.entries(command.args).map(([name, arg]) =>
    arg.required === true ? name.toUpperCase() : `[${name.toUpperCase()}]`,
  );
  return [`plants ${command.id.replaceAll(':', ' ')}`, ...args].join(' ');
}

function commandName(command: UsageCommand): string {
  return `\`plants ${command.id.replaceAll(':', ' ')}\``;
}

/** `a`, `a and b`, `a, b and c`. */
function list(words: readonly string[], conjunction = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;
}

/** An argument or flag description as part of a sentence: `Id of the plant.` → `id of the plant`. */
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
export function unexpectedArgument(command: UsageCommand): string {
  const args = Object.keys(command.args).map((name) => name.toUpperCase());
  const allRequired = Object.values(command.args).every((arg) => arg.required === true);
  const count = numbers[args.length] ?? String(args.length);
  const takes =
    args.length === 0
      ? 'takes no arguments'
      : `takes ${allRequired ? '' : 'at most '}${count} argument${args.length === 1 ? '' : 's'}, ${list(args)}`;
  return `unexpected argument: ${commandName(command)} ${takes}, and a flag's value goes right after it`;
}

/** Flags whose values are secrets: never repeated, not even in a suggestion to quote them; nor is a stray word of a command that has one. */
const secretFlags = new Set(['token', 'metrics-token']);

/**
 * A value with spaces given unquoted (`--name Boston Fern`): the flag, and the words that belong
 * together, when the first stray word follows the value of one of the command's option flags.
 */
export function unquotedValue(
  argv: readonly string[],
  strays: readonly string[],
  command: UsageCommand,
): { flag: string; words: string[] } | undefined {
  const first = strays[0];
  // On a command that takes a token, a stray word may be one (`login --base-url URL TOKEN`).
  if (first === undefined || Object.keys(command.flags).some((name) => secretFlags.has(name))) return undefined;
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  for (let at = 1; at < words.length; at++) {
    if (words[at] !== first) continue;
    const before = words[at - 1] ?? '';
    const inline = /^--([\w-]+)=(.*)$/s.exec(before);
    const name = inline?.[1] ?? (/^--([\w-]+)$/.exec(words[at - 2] ?? '')?.[1] as string | undefined);
    const value = inline?.[2] ?? before;
    if (name === undefined || command.flags[name]?.type !== 'option' || secretFlags.has(name)) continue;
    if (inline === undefined && value.startsWith('-')) continue;
    // The stray words that follow, up to the next flag.
    const rest: string[] = [];
    for (let next = at; next < words.length && !(words[next] ?? '').startsWith('-'); next++)
      rest.push(words[next] ?? '');
    return { flag: name, words: [value, ...rest] };
  }
  return undefined;
}

function flagValue(flag: UsageCommand['flags'][string] | undefined, name: string): string {
  const help = flag?.helpValue;
  const value = Array.isArray(help) ? help[0] : help;
  if (value !== undefined) return value;
  if (flag?.options !== undefined) return flag.options.join('|');
  return name.toUpperCase();
}

function range(flag: UsageCommand['flags'][string] | undefined): string {
  const { min, max } = flag ?? {};
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

/** A value a flag's own parser refused: `Parsing --limit\n\tExpected an integer…`. */
function badFlagValue(command: UsageCommand, name: string, reason: string): string {
  const flag = command.flags[name];
  const integer = /^Expected an integer (?:but|(?:greater|less) than or equal to -?\d+ but) received: (.*)$/s.exec(
    reason,
  );
  if (integer !== null) return `--${name} must be a whole number${range(flag)} (got ${JSON.stringify(integer[1])})`;
  // Our own parsers name the flag already (`--timeout must be a number of seconds above 0`).
  if (reason.startsWith(`--${name}`)) return reason;
  return `--${name}: ${phrase(reason)}`;
}

function flagList(text: string): string[] {
  return text.split(/,\s*/).map((flag) => flag.trim());
}

/** One reason of oclif's flag validation (relations between flags), as a clause. */
function flagRelation(command: UsageCommand, reason: string): string {
  let match = /^Missing required flag ([\w-]+)$/.exec(reason);
  if (match?.[1] !== undefined) {
    const name = match[1];
    return `${commandName(command)} needs --${name} ${flagValue(command.flags[name], name)}`;
  }
  match = /^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/s.exec(reason);
  if (match !== null) return `--${match[2]} and --${match[1]} cannot be used together`;
  match = /^All of the following must be provided when using --([\w-]+): (.*)$/.exec(reason);
  if (match?.[2] !== undefined) return `--${match[1]} needs ${list(flagList(match[2]))} as well`;
  match = /^One of the following must be provided when using --([\w-]+): (.*)$/.exec(reason);
  if (match?.[2] !== undefined) return `--${match[1]} needs ${list(flagList(match[2]), 'or')} as well`;
  match = /^Only the following can be provided when using --([\w-]+): (.*)$/.exec(reason);
  if (match?.[2] !== undefined) return `--${match[1]} can be used only with ${list(flagList(match[2]), 'or')}`;
  match = /^Exactly one of the following must be provided: (.*)$/.exec(reason);
  if (match?.[1] !== undefined) return `give exactly one of ${list(flagList(match[1]), 'or')}`;
  match = /^At least one of the following must be provided: (.*)$/.exec(reason);
  if (match?.[1] !== undefined) return `give at least one of ${list(flagList(match[1]), 'or')}`;
  return phrase(reason);
}

/** The sentence (and a usage hint where it helps) for one of oclif's parse errors. */
export function usageSentence(
  error: Error & { args?: unknown; flags?: unknown },
  command: UsageCommand,
  /** The command line (after the command's id), to tell a value with spaces given unquoted. */
  argv?: readonly string[],
): { message: string; hints: string[] } {
  const text = error.message
    .replace(ansi, '')
    .replace(/\n\s*See more help with --help\s*$/, '')
    .trim();
  const usage = [`Usage: ${usageLine(command)}`];

  if (/^Missing \d+ required args?\b/.test(text)) {
    const missing = Array.isArray(error.args) ? (error.args as { name?: string; description?: string }[]) : [];
    const named = missing.map((arg) => {
      const what = phrase(arg.description);
      return `${(arg.name ?? 'argument').toUpperCase()}${what === '' ? '' : `, ${what}`}`;
    });
    return { message: `${commandName(command)} needs ${list(named)}`, hints: usage };
  }
  if (/^Unexpected arguments?:/.test(text)) {
    const strays = Array.isArray(error.args) ? error.args.map(String) : [];
    const unquoted = argv === undefined ? undefined : unquotedValue(argv, strays, command);
    if (unquoted !== undefined) {
      const value = unquoted.words.join(' ');
      // Double quotes as people type them; single quotes when the shell would read into double ones.
      const quoted = /^[^"$`\\!]*$/.test(value) ? `"${value}"` : `'${value.replaceAll("'", "'\\''")}'`;
      return {
        message: `unexpected argument: --${unquoted.flag} takes one word as its value, so a value with spaces goes in quotes`,
        hints: [`Quote it: --${unquoted.flag} ${quoted}`],
      };
    }
    return { message: unexpectedArgument(command), hints: usage };
  }

  if (/^Nonexistent flags?:/.test(text)) {
    const flags = Array.isArray(error.flags) ? error.flags.map((flag) => String(flag).split('=')[0] ?? '') : [];
    const names = flags.map((flag) => flag.slice(0, 40));
    return {
      message: `${commandName(command)} has no flag${names.length === 1 ? '' : 's'} ${list(names)}`,
      hints: [],
    };
  }

  let match = /^Parsing --([\w-]+)\s*\n\t?([\s\S]*)$/.exec(text);
  if (match?.[1] !== undefined) return { message: badFlagValue(command, match[1], (match[2] ?? '').trim()), hints: [] };

  match = /^Flag --([\w-]+) expects (?:a value|one of these values: .*)$/.exec(text);
  if (match?.[1] !== undefined) {
    const name = match[1];
    const options = command.flags[name]?.options;
    const value = options === undefined ? flagValue(command.flags[name], name) : choices(options);
    return { message: `--${name} needs a value: ${value}`, hints: [] };
  }

  match = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(text);
  if (match?.[1] !== undefined) {
    return {
      message: `--${match[1]} must be ${choices(flagList(match[3] ?? ''))} (got ${JSON.stringify(match[2])})`,
      hints: [],
    };
  }

  match = /^Expected ([\s\S]*) to be one of: (.*)$/.exec(text);
  if (match?.[2] !== undefined) {
    const options = flagList(match[2]);
    const arg = Object.keys(command.args)[0]?.toUpperCase() ?? 'the argument';
    return { message: `${arg} must be ${choices(options)} (got ${JSON.stringify(match[1])})`, hints: usage };
  }

  match = /^The following errors? occurred:\s*([\s\S]*)$/.exec(text);
  if (match?.[1] !== undefined) {
    const reasons = [...new Set(match[1].split('\n').map((line) => line.trim()))].filter(Boolean);
    const clauses = [...new Set(reasons.map((reason) => flagRelation(command, reason)))];
    return { message: clauses.join('; '), hints: [] };
  }

  return { message: text.replace(/\s*\n\s*/g, '; '), hints: [] };
}
