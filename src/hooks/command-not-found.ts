import type { Hook } from '@oclif/core';
import { unknownCommand } from '../cli/help/suggest.js';

/**
 * A command oclif does not know, where oclif meets one (the entry answers the rest first): the
 * same words and exit code as the entry's (suggest.ts), on a terminal and in a script alike.
 */
const hook: Hook<'command_not_found'> = async function (options) {
  const visible = options.config.commands.filter((command) => !command.hidden);
  const commands = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)];
  const topics = options.config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name);
  const words = (ids: string[]) => ids.map((id) => id.replaceAll(':', ' '));
  process.stderr.write(unknownCommand(options.id.split(':'), words(commands), words(topics)));
  this.exit(127);
};

export default hook;
