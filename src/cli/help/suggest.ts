import type { Config } from '@oclif/core';
import { InvalidInputError } from '../../errors.js';

/** Edit distance (insertions, deletions, substitutions) between two short words. */
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

/**
 * For `plants help WORDS`: an error naming the closest command or topic when WORDS are neither
 * (`help env` → `plants help environment`), or undefined when oclif's help knows them.
 */
export function unknownHelpSubject(
  words: readonly string[],
  config: Config,
  topics: readonly string[],
): InvalidInputError | undefined {
  const id = words.join(':');
  if (config.findCommand(id) !== undefined || config.findTopic(id) !== undefined) return undefined;
  const visible = config.commands.filter((command) => !command.hidden);
  const subjects = [
    ...visible.map((command) => command.id.replaceAll(':', ' ')),
    ...visible.flatMap((command) => command.aliases.map((alias) => alias.replaceAll(':', ' '))),
    ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name.replaceAll(':', ' ')),
    ...topics,
  ];
  const asked = words.join(' ');
  const guess = closestCommand(asked, subjects) ?? closestByPrefix(asked, subjects);
  return new InvalidInputError(`no help for '${asked.slice(0, 40)}': it is neither a command nor a topic`, {
    hints: [
      ...(guess === undefined ? [] : [`Did you mean \`plants help ${guess}\`?`]),
      'Run `plants help` for the commands and topics.',
    ],
  });
}

/** The one candidate that starts with `word` (`env` → `environment`), if exactly one does. */
function closestByPrefix(word: string, candidates: readonly string[]): string | undefined {
  const matches = [...new Set(candidates.filter((candidate) => word.length >= 2 && candidate.startsWith(word)))];
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * "Did you mean" for the flags oclif found no such flag for (`--nmae` → `--name`), as a
 * mistyped command gets. Only a flag's own name is repeated, never a value.
 */
export function flagSuggestions(error: unknown, known: readonly string[]): string[] {
  const unknown = (error as { flags?: unknown }).flags;
  if (!Array.isArray(unknown)) return [];
  return unknown.flatMap((flag) => {
    if (typeof flag !== 'string' || !flag.startsWith('--')) return [];
    const name = flag.slice(2).split('=')[0] ?? '';
    const guess = closestCommand(name, known);
    if (guess === undefined) return [];
    return [
      unknown.length === 1 ? `Did you mean \`--${guess}\`?` : `Did you mean \`--${guess}\` for --${name.slice(0, 40)}?`,
    ];
  });
}
