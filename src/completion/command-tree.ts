import type { Command, Config } from '@oclif/core';

/** The commands (aliases included), topics and flags of the CLI, as completion sees them. */
export type CompletionTree = ReturnType<typeof completionTree>;
/** A command, or an alias of one, as the words a user types (`['plant', 'add']`). */
export type CompletionCommand = CompletionTree['commands'][number];
export type CompletionFlag = ReturnType<typeof completionFlag>;

/**
 * The visible commands (aliases included: `plant add` is typed as often as `add`), topics and
 * flags of the CLI, from oclif's own description of itself. `helpTopics` are the extra words
 * `plants help` takes besides command names.
 */
export function completionTree(config: Config, helpTopics: readonly string[] = []) {
  const visible = config.commands.filter((command) => !command.hidden);
  const commands = visible
    .map((command) => {
      const flags = Object.entries(command.flags)
        .filter(([, flag]) => !flag.hidden)
        .map(([name, flag]) => completionFlag(name, flag))
        .sort((a, b) => a.name.localeCompare(b.name));
      const firstArg = Object.values(command.args ?? {})[0];
      return {
        words: command.id.split(':'),
        summary: oneLine(command.summary ?? command.description ?? ''),
        flags,
        // What the first argument can be, when it is one of a known few.
        ...(firstArg?.options === undefined ? {} : { argumentValues: firstArg.options }),
      };
    })
    .sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')));
  const commandIds = new Set(visible.map((command) => command.id));
  const topics = config.topics
    .filter((topic) => !topic.hidden && !commandIds.has(topic.name))
    // A topic: a word that only leads to commands (`plant` in `plant add`).
    .map((topic) => ({ words: topic.name.split(':'), summary: oneLine(topic.description ?? '') }));
  const topLevel = [...new Set([...commands, ...topics].map((entry) => entry.words[0] ?? ''))].sort();
  return {
    bin: config.bin,
    commands: commands.map((command) =>
      command.words.join(' ') === 'help' ? { ...command, argumentValues: [...topLevel, ...helpTopics] } : command,
    ),
    topics,
  };
}

function completionFlag(name: string, flag: Command.Flag.Cached) {
  const takesValue = flag.type === 'option';
  return {
    name,
    ...(flag.char === undefined ? {} : { char: flag.char }),
    summary: oneLine(flag.summary ?? flag.description ?? ''),
    // (False for a boolean switch.)
    takesValue,
    ...(takesValue && flag.options !== undefined ? { options: flag.options } : {}),
    // Its value is a path (helpValue PATH), so the shell offers files.
    completesFiles: takesValue && flag.helpValue === 'PATH',
  };
}

/** The first line, for a one-line description beside a completion. */
function oneLine(text: string): string {
  return (text.split('\n', 1)[0] ?? '').trim();
}

/** Every way of typing a flag that takes a value (`--file`, `-f`), across commands: what a completer skips the value of. */
export function valuedFlagWords(tree: CompletionTree): string[] {
  const words = tree.commands.flatMap((command) => command.flags.filter((flag) => flag.takesValue).flatMap(flagWords));
  return [...new Set(words)].sort();
}

/** The ways of typing a flag: `--file`, and `-f` when it has a short form. */
export function flagWords(flag: CompletionFlag): string[] {
  return [`--${flag.name}`, ...(flag.char === undefined ? [] : [`-${flag.char}`])];
}
