import type { Hook } from '@oclif/core';
import { closestCommand } from '../cli/suggest.js';

/**
 * A mistyped command when nobody can answer a prompt (a script, a pipe): say what was meant
 * on stderr and exit 127, as shells do for an unknown command; never run the guess. On a
 * terminal, @oclif/plugin-not-found asks "Did you mean …?" instead.
 */
const hook: Hook<'command_not_found'> = async function (options) {
  if (process.stdin.isTTY === true && process.stderr.isTTY === true) return;
  const visible = options.config.commands.filter((command) => !command.hidden);
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)];
  const typed = options.id.replaceAll(':', ' ');
  const guess = closestCommand(options.id, ids);
  process.stderr.write(`plants: '${typed}' is not a plants command.\n`);
  if (guess !== undefined) process.stderr.write(`  Did you mean \`plants ${guess.replaceAll(':', ' ')}\`?\n`);
  process.stderr.write('  Run `plants help` for a list of commands.\n');
  this.exit(127);
};

export default hook;
