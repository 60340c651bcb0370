import { PlantsCommand } from '../../cli/base-command.js';
import { chosenShell, runPluginAutocomplete, shellArg } from '../../cli/help/autocomplete.js';

export class AutocompleteScript extends PlantsCommand {
  static override summary = 'Print the completion set-up for a shell (for fish, the whole completion script).';
  static override hidden = true;
  static override args = shellArg;

  async run(): Promise<void> {
    const { args } = await this.parse(AutocompleteScript);
    const shell = chosenShell(args.shell, this.config);
    if (shell !== 'fish') return runPluginAutocomplete(this.config, 'autocomplete:script', this.argv);
    const [{ completionTree }, { fishCompletionScript }, { helpTopics }] = await Promise.all([
      import('../../completion/command-tree.js'),
      import('../../completion/fish.js'),
      import('../../cli/help/help-topics.js'),
    ]);
    this.output.data(fishCompletionScript(completionTree(this.config, Object.keys(helpTopics))).trimEnd());
  }
}
