import type { Hook } from '@oclif/core';
import { closestCommand } from '../cli/help/suggest.js';
import { unexpectedArgument, usageLine } from '../cli/help/usage-error.js';

/**
 * A mistyped command: say what was meant on stderr, in the voice of every other message, and
 * exit 127 as shells do for an unknown command; never run the guess (as gh does not). The same
 * on a terminal and in a script.
 */
const hook: Hook<'command_not_found'> = async function (options) {
  const visible = options.config.commands.filter((command) => !command.hidden);
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)];
  const topics = options.config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name);
  // Only the first word is repeated (the rest may be a value typed without its flag, a token
  // even), and the second when the first is a topic: `plant ad` is a mistyped `plant add`.
  const [first = '', second] = options.id.split(':');
  const known = ids.includes(first) ? options.config.findCommand(first) : undefined;
  if (known !== undefined) {
    // The same sentence as a stray word meets in the command's own parser (PlantsCommand).
    const command = { id: known.id, args: known.args, flags: known.flags };
    process.stderr.write(`plants: ${unexpectedArgument(command)}\n`);
    process.stderr.write(`  Usage: ${usageLine(command)}\n  See \`plants ${known.id.replaceAll(':', ' ')} --help\`.\n`);
    this.exit(2);
  }
  const inTopic = topics.includes(first) && second !== undefined;
  const typed = inTopic ? `${first}:${second}` : first;
  const guess = inTopic
    ? closestCommand(
        second,
        ids.flatMap((id) => (id.startsWith(`${first}:`) ? [id.slice(first.length + 1)] : [])),
      )
    : closestCommand(first, ids);
  // A word that resembles no command is not repeated: it may be a token typed as the command.
  if (guess === undefined)
    process.stderr.write('plants: that is not a plants command (the word is not repeated here).\n');
  else {
    process.stderr.write(`plants: '${typed.replaceAll(':', ' ').slice(0, 40)}' is not a plants command.\n`);
    process.stderr.write(`  Did you mean \`plants ${inTopic ? `${first} ` : ''}${guess.replaceAll(':', ' ')}\`?\n`);
  }
  process.stderr.write('  Run `plants help` for a list of commands.\n');
  this.exit(127);
};

export default hook;
