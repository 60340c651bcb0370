import type { CommandRoute, RouteTable } from '../entry/route-table.js';
import { readEnv } from './env.js';

/** Words shorter than this are never taken for a token (a token that short is refused anyway). */
const SHORTEST_SECRET = 8;

/**
 * A word shaped as words are (`exit-code`): a typo, echoed so that it can be seen, not a token,
 * whose random letters come in both cases, with digits or signs.
 */
const WORD_SHAPE = /^[a-z]+(?:-[a-z]+)*$/;

/**
 * The words of a command line that may be a secret: any `--token` value, the value of a flag
 * that does not exist (`--tokne=T`), any other long word not WORD_SHAPE nor known, PLANTS_TOKEN.
 * A known flag's value is not one: usage errors quote it so that the typo can be seen.
 */
export function secretWords(
  argv: readonly string[],
  /** Command and topic words, and the flags that take a value (with their one-letter names). */
  known: { words: ReadonlySet<string>; flags: ReadonlySet<string> },
  envToken?: string,
): string[] {
  const words = new Set<string>();
  const keep = (flag: string) => known.flags.has(flag) && flag !== 'token';
  argv.forEach((arg, index) => {
    let value = arg;
    let flag: string | undefined;
    if (arg.startsWith('-')) {
      const equals = arg.indexOf('=');
      if (equals === -1) return;
      flag = arg.slice(0, equals).replace(/^-+/, '');
      value = arg.slice(equals + 1);
    } else {
      const previous = argv[index - 1];
      if (previous?.startsWith('-') === true && !previous.includes('=')) flag = previous.replace(/^-+/, '');
    }
    if (flag !== undefined && keep(flag)) return;
    if (value.length < SHORTEST_SECRET || known.words.has(value)) return;
    if (flag === undefined && WORD_SHAPE.test(value)) return;
    words.add(value);
  });
  if (envToken !== undefined && envToken.length > 0) words.add(envToken);
  // Longest first, so that a word containing another is masked whole.
  return [...words].sort((a, b) => b.length - a.length);
}

/** The command words and the flags that take a value (with their one-letter names). */
export function knownWordsOf(commands: [string, CommandRoute][]): { words: Set<string>; flags: Set<string> } {
  const words = new Set<string>();
  const flags = new Set<string>();
  for (const [key, command] of commands) {
    for (const word of key.split(' ')) words.add(word);
    for (const [flag, { char, type }] of Object.entries(command.flags)) {
      if (type !== 'option') continue;
      flags.add(flag);
      if (char !== undefined) flags.add(char);
    }
  }
  return { words, flags };
}

export function maskWords(text: string, words: readonly string[]): string {
  let masked = text;
  for (const word of words) if (masked.includes(word)) masked = masked.split(word).join('***');
  return masked;
}

/**
 * oclif repeats the command line, tokens included, on stderr in its debug output (DEBUG=*) and in
 * help for a command that does not exist ("Command login:T not found"): then stderr is masked.
 */
export async function maskSecretsInDebugOutput(
  argv: readonly string[],
  routes: () => Promise<RouteTable>,
  stderr: NodeJS.WriteStream,
): Promise<void> {
  const env = readEnv();
  const help = argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h');
  if (!env.debug && !help) return;
  const { helpTopics } = await import('./help/help-topics.js');
  let known = { words: new Set<string>(), flags: new Set<string>() };
  try {
    known = knownWordsOf(Object.entries((await routes()).commands));
  } catch {
    // Without the route table every long word is masked: safe.
  }
  for (const topic of Object.keys(helpTopics)) known.words.add(topic);
  const words = secretWords(argv, known, env.token);
  if (words.length === 0) return;
  const write = stderr.write.bind(stderr) as (...args: unknown[]) => boolean;
  stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(
      typeof chunk === 'string' || Buffer.isBuffer(chunk) ? maskWords(chunk.toString(), words) : chunk,
      ...rest,
    )) as typeof stderr.write;
}
