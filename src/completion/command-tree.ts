import type { Command, Config } from '@oclif/core';

export type CompletionTree = ReturnType<typeof completionTree>;
export type CompletionCommand = CompletionTree['commands'][number];
export type CompletionFlag = ReturnType<typeof completionFlag>;

/** The visible commands (aliases included), topics and flags, from oclif's own description of the CLI. */
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
        ...(firstArg?.options === undefined ? {} : { argumentValues: firstArg.options }),
      };
    })
    .sort((a, b) => a.words.join(' ').localeCompare(b.words.join(' ')));
  const commandIds = new Set(visible.map((command) => command.id));
  const topics = config.topics
    .filter((topic) => !topic.hidden && !commandIds.has(topic.name))
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
    takesValue,
    ...(takesValue && flag.options !== undefined ? { options: flag.options } : {}),
    completesFiles: takesValue && flag.helpValue === 'PATH',
  };
}

function oneLine(text: string): string {
  return (text.split('\n', 1)[0] ?? '').trim();
}

/** Every way of typing a flag that takes a value (`--file`, `-f`): what a completer skips the value of. */
export function valuedFlagWords(tree: CompletionTree): string[] {
  const words = tree.commands.flatMap((command) => command.flags.filter((flag) => flag.takesValue).flatMap(flagWords));
  return [...new Set(words)].sort();
}

export function flagWords(flag: CompletionFlag): string[] {
  return [`--${flag.name}`, ...(flag.char === undefined ? [] : [`-${flag.char}`])];
}
