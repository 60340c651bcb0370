import type { Hook } from '@oclif/core';
import { unknownCommand, visibleWords } from '../cli/help/suggest.js';

/** A command oclif does not know (where oclif meets one first): the same words and exit code as the entry's. */
const hook: Hook<'command_not_found'> = async function (options) {
  const { commands, topics } = visibleWords(options.config);
  process.stderr.write(unknownCommand(options.id.split(':'), commands, topics));
  this.exit(127);
};

export default hook;
