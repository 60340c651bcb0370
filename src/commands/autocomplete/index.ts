import { Flags } from '@oclif/core';
import { PlantsCommand } from '../../cli/base-command.js';
import { chosenShell, pluginAutocomplete, shellArg } from '../../cli/help/autocomplete.js';
import type { ActionContext } from '../../cli/runner.js';

export class Autocomplete extends PlantsCommand {
  static override summary = 'Show how to set up tab completion for bash, zsh, fish or PowerShell.';
  static override examples = [
    '<%= config.bin %> autocomplete',
    '<%= config.bin %> autocomplete bash',
    '<%= config.bin %> autocomplete zsh',
    '<%= config.bin %> autocomplete fish',
    '<%= config.bin %> autocomplete powershell',
  ];
  static override args = shellArg;
  static override flags = {
    'refresh-cache': Flags.boolean({
      char: 'r',
      summary: 'Rebuild the zsh and PowerShell completion cache without showing instructions.',
      default: false,
    }),
  };

  protected override async act({ output }: ActionContext): Promise<void> {
    const { args, flags } = await this.parse(Autocomplete);
    const shell = chosenShell(args.shell, this.config);
    if (shell !== 'fish' && shell !== 'bash') return pluginAutocomplete(this.config, 'autocomplete', this.argv);
    if (flags['refresh-cache']) return;
    const { setupInstructions } = await import('../../cli/help/autocomplete.js');
    output.data(await setupInstructions(shell, this.config.bin));
  }
}
