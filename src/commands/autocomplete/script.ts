import { PlantsCommand } from '../../cli/base-command.js';
import { shellArg } from '../../cli/help/autocomplete.js';
import { printCompletionScript } from '../../cli/help/print-completion-script.js';

export class AutocompleteScript extends PlantsCommand {
  static override action = printCompletionScript;
  static override summary = 'Print the completion set-up for a shell (for bash and fish, the whole completion script).';
  static override hidden = true;
  static override args = shellArg;
}
