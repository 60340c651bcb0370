import { Args, Errors } from '@oclif/core';
import { InvalidInputError } from '../../errors.js';
import type { OclifContext } from '../base-command.js';

/**
 * bash and fish completion are ours (src/completion/): the plugin's bash script knows neither flag
 * values nor files nor help topics. zsh and PowerShell are handed to @oclif/plugin-autocomplete.
 */
const COMPLETION_SHELLS = ['bash', 'zsh', 'fish', 'powershell'];

export const shellArg = {
  shell: Args.string({
    description: 'The shell (default: the one in $SHELL).',
    options: COMPLETION_SHELLS,
    required: false,
  }),
};

/** The shell asked for, else $SHELL, when it is one of ours; else the plugin's command of this id answers. */
export async function ourShell(
  asked: string | undefined,
  { oclif, argv }: OclifContext,
  id: string,
): Promise<'bash' | 'fish' | undefined> {
  const shell = asked ?? oclif.shell;
  if (!COMPLETION_SHELLS.includes(shell)) {
    const which = asked === undefined ? `your shell ($SHELL) is ${shell}` : `no completion for ${shell}`;
    throw new InvalidInputError(
      `${which}: name one of ${COMPLETION_SHELLS.join(', ')}, e.g. \`plants autocomplete bash\``,
    );
  }
  if (shell === 'bash' || shell === 'fish') return shell;
  const plugin = oclif.plugins.get('@oclif/plugin-autocomplete');
  if (plugin === undefined) throw new Errors.CLIError('@oclif/plugin-autocomplete is not installed');
  const command = await plugin.findCommand(id, { must: true });
  await command.run(argv, oclif);
  return undefined;
}
