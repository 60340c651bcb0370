import { Flags } from '@oclif/core';
import { PlantsCommand } from '../../cli/base-command.js';
import { shellArg } from '../../cli/help/autocomplete.js';
import { setUpCompletion } from '../../cli/help/set-up-completion.js';

export class Autocomplete extends PlantsCommand {
  static override action = setUpCompletion;
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
}
