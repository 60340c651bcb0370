import { PlantsCommand } from '../../cli/base-command.js';
import { chosenShell, pluginAutocomplete, shellArg } from '../../cli/help/autocomplete.js';
import type { ActionContext } from '../../cli/runner.js';

export class AutocompleteScript extends PlantsCommand {
  static override summary = 'Print the completion set-up for a shell (for bash and fish, the whole completion script).';
  static override hidden = true;
  static override args = shellArg;

  protected override async act({ output }: ActionContext): Promise<void> {
    const { args } = await this.parse(AutocompleteScript);
    const shell = chosenShell(args.shell, this.config);
    if (shell !== 'fish' && shell !== 'bash') {
      return pluginAutocomplete(this.config, 'autocomplete:script', this.argv);
    }
    const { completionScript } = await import('../../cli/help/autocomplete.js');
    output.data((await completionScript(shell, this.config)).trimEnd());
  }
}
