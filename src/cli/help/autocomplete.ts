import { Args, type Config, Errors } from '@oclif/core';
import { InvalidInputError } from '../../errors.js';

/**
 * @oclif/plugin-autocomplete writes zsh and PowerShell completion; bash and fish are ours
 * (src/completion/): the plugin's bash script knows neither flag values nor files nor help
 * topics. Our `autocomplete` commands take the plugin's place and hand zsh and PowerShell to it.
 */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

function isCompletionShell(shell: string): shell is CompletionShell {
  return (COMPLETION_SHELLS as readonly string[]).includes(shell);
}

export const shellArg = {
  shell: Args.string({
    description: 'The shell (default: the one in $SHELL).',
    options: [...COMPLETION_SHELLS],
    required: false,
  }),
};

/** The shell asked for, else the user's own (oclif reads it from $SHELL). */
export function chosenShell(asked: string | undefined, config: Config): CompletionShell {
  const shell = asked ?? config.shell;
  if (!isCompletionShell(shell)) {
    const which = asked === undefined ? `your shell ($SHELL) is ${shell}` : `no completion for ${shell}`;
    throw new InvalidInputError(
      `${which}: name one of ${COMPLETION_SHELLS.join(', ')}, e.g. \`plants autocomplete bash\``,
    );
  }
  return shell;
}

/** Runs the plugin's own command of this id, with the same arguments. */
export async function pluginAutocomplete(config: Config, id: string, argv: string[]): Promise<void> {
  const plugin = config.plugins.get('@oclif/plugin-autocomplete');
  if (plugin === undefined) throw new Errors.CLIError('@oclif/plugin-autocomplete is not installed');
  const command = await plugin.findCommand(id, { must: true });
  await command.run(argv, config);
}

/** Our own completion script for bash or fish, from oclif's description of the commands. */
export async function completionScript(shell: 'bash' | 'fish', config: Config): Promise<string> {
  const [{ completionTree }, { helpTopics }] = await Promise.all([
    import('../../completion/command-tree.js'),
    import('./help-topics.js'),
  ]);
  const tree = completionTree(config, Object.keys(helpTopics));
  if (shell === 'bash') return (await import('../../completion/bash.js')).bashCompletionScript(tree);
  return (await import('../../completion/fish.js')).fishCompletionScript(tree);
}

/** What `plants autocomplete bash|fish` prints: how to install our script. */
export async function setupInstructions(shell: 'bash' | 'fish', bin: string): Promise<string> {
  if (shell === 'bash') return (await import('../../completion/bash.js')).bashSetupInstructions(bin);
  return (await import('../../completion/fish.js')).fishSetupInstructions(bin);
}
