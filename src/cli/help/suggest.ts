import type { Config } from '@oclif/core';
import { InvalidInputError } from '../../errors.js';

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest of `candidates` to `word`, if it is close enough to be what was meant. */
export function closestCommand(word: string, candidates: readonly string[]): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const id of candidates) {
    const distance = editDistance(word, id);
    if (best === undefined || distance < best.distance) best = { id, distance };
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(word.length / 2)) ? best.id : undefined;
}

/** For `plants help WORDS`: an error naming the closest command or topic, or undefined when oclif knows them. */
export function unknownHelpSubject(
  words: readonly string[],
  config: Config,
  topics: readonly string[],
): InvalidInputError | undefined {
  const id = words.join(':');
  if (config.findCommand(id) !== undefined || config.findTopic(id) !== undefined) return undefined;
  const visible = visibleWords(config);
  const subjects = [...visible.commands, ...visible.topics, ...topics];
  const asked = words.join(' ');
  const guess = closestCommand(asked, subjects) ?? closestByPrefix(asked, subjects);
  return new InvalidInputError(`no help for '${asked.slice(0, 40)}': it is neither a command nor a topic`, {
    hints: [
      ...(guess === undefined ? [] : [`Did you mean \`plants help ${guess}\`?`]),
      'Run `plants help` for the commands and topics.',
    ],
  });
}

/** oclif's commands and topics that are not hidden, as typed (`plant add`). */
export function visibleWords(config: Pick<Config, 'commands' | 'topics'>): { commands: string[]; topics: string[] } {
  const visible = config.commands.filter((command) => !command.hidden);
  const words = (ids: string[]) => ids.map((id) => id.replaceAll(':', ' '));
  return {
    commands: words([...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)]),
    topics: words(config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name)),
  };
}

/** The one candidate that starts with `word` (`env` → `environment`), if exactly one does. */
function closestByPrefix(word: string, candidates: readonly string[]): string | undefined {
  const matches = [...new Set(candidates.filter((candidate) => word.length >= 2 && candidate.startsWith(word)))];
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * An unknown command's message: the closest command, never run (as gh). Only the first word (and
 * the second after a topic) is repeated, and only when it resembles a command: the rest may be a token.
 */
export function unknownCommand(argv: readonly string[], commands: readonly string[], topics: readonly string[]) {
  const [first = '', second] = argv;
  const inTopic = topics.includes(first) && second !== undefined;
  const guess = inTopic
    ? closestCommand(
        second,
        commands.flatMap((words) => (words.startsWith(`${first} `) ? [words.slice(first.length + 1)] : [])),
      )
    : closestCommand(first, commands);
  const typed = inTopic ? `${first} ${second}` : first;
  const lines =
    guess === undefined
      ? ['plants: that is not a plants command (the word is not repeated here).']
      : [
          `plants: '${typed.slice(0, 40)}' is not a plants command.`,
          `  Did you mean \`plants ${inTopic ? `${first} ` : ''}${guess}\`?`,
        ];
  return `${[...lines, '  Run `plants help` for a list of commands.'].join('\n')}\n`;
}
