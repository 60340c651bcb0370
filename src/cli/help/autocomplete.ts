import { Args, type Config, Errors } from '@oclif/core';
import { InvalidInputError } from '../../errors.js';

/**
 * @oclif/plugin-autocomplete writes bash, zsh and PowerShell completion; fish is ours
 * (src/completion/fish.ts). Our `autocomplete` commands take the plugin's place and hand every
 * shell but fish back to it.
 */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export const shellArg = {
  shell: Args.string({
    description: 'The shell (default: the one in $SHELL).',
    options: [...COMPLETION_SHELLS],
    required: false,
  }),
};

/** The shell asked for, else the user's own (oclif reads it from $SHELL). */
export function chosenShell(asked: string | undefined, config: Config): string {
  const shell = asked ?? config.shell;
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    const which = asked === undefined ? `your shell ($SHELL) is ${shell}` : `no completion for ${shell}`;
    throw new InvalidInputError(
      `${which}: name one of ${COMPLETION_SHELLS.join(', ')}, e.g. \`plants autocomplete bash\``,
    );
  }
  return shell;
}

/** Runs the plugin's own command of this id, with the same arguments. */
export async function runPluginAutocomplete(config: Config, id: string, argv: string[]): Promise<void> {
  const plugin = config.plugins.get('@oclif/plugin-autocomplete');
  if (plugin === undefined) throw new Errors.CLIError('@oclif/plugin-autocomplete is not installed');
  const command = await plugin.findCommand(id, { must: true });
  await command.run(argv, config);
}
