import type { Hook } from '@oclif/core';
import { closestCommand } from '../cli/help/suggest.js';

/**
 * A mistyped command when nobody can answer a prompt (a script, a pipe): say what was meant
 * on stderr and exit 127, as shells do for an unknown command; never run the guess. On a
 * terminal, @oclif/plugin-not-found asks "Did you mean …?" instead.
 */
const hook: Hook<'command_not_found'> = async function (options) {
  const visible = options.config.commands.filter((command) => !command.hidden);
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)];
  // Only the first word is repeated: the rest may be a value typed without its flag, a token even.
  const [first = ''] = options.id.split(':');
  if (ids.includes(first)) {
    process.stderr.write(
      `plants: unexpected argument to \`plants ${first}\` (values go with flags; nothing was repeated here).\n`,
    );
    process.stderr.write(`  See \`plants ${first} --help\`.\n`);
    this.exit(2);
  }
  // On a terminal @oclif/plugin-not-found asks instead.
  if (process.stdin.isTTY === true && process.stderr.isTTY === true) return;
  const guess = closestCommand(first, ids);
  // A word that resembles no command is not repeated: it may be a token typed as the command.
  if (guess === undefined)
    process.stderr.write('plants: that is not a plants command (the word is not repeated here).\n');
  else {
    process.stderr.write(`plants: '${first.slice(0, 40)}' is not a plants command.\n`);
    process.stderr.write(`  Did you mean \`plants ${guess.replaceAll(':', ' ')}\`?\n`);
  }
  process.stderr.write('  Run `plants help` for a list of commands.\n');
  this.exit(127);
};

export default hook;
