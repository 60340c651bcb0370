import { PlantsCommand } from '../../cli/base-command.js';
import { chosenShell, runPluginAutocomplete, shellArg } from '../../cli/help/autocomplete.js';

export class AutocompleteScript extends PlantsCommand {
  static override summary = 'Print the completion set-up for a shell (for bash and fish, the whole completion script).';
  static override hidden = true;
  static override args = shellArg;

  override async run(): Promise<void> {
    const { args } = await this.parse(AutocompleteScript);
    const shell = chosenShell(args.shell, this.config);
    if (shell !== 'fish' && shell !== 'bash') {
      return runPluginAutocomplete(this.config, 'autocomplete:script', this.argv);
    }
    const { completionScript } = await import('../../cli/help/autocomplete.js');
    this.output.data((await completionScript(shell, this.config)).trimEnd());
  }
}
