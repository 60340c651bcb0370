import { Flags } from '@oclif/core';
import { resetStore } from '../cli/actions/reset-store.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';

export class Reset extends PlantsCommand {
  static override action = resetStore;
  static override summary = 'Put a test store back to its seed (plants serve --allow-reset).';
  static override description =
    `Calls POST /reset on a store started with plants serve --allow-reset: every plant in it is replaced by the plants of its --seed (none without one), in one transaction. Then prints what the store holds, as plants list --all does: a table on a terminal, NDJSON when piped or with --json.

On a terminal it asks first (--yes skips the question); anywhere else it needs --yes. A store started without --allow-reset refuses (exit 1) and changes nothing.`;
  static override examples = [
    '<%= config.bin %> reset',
    '<%= config.bin %> reset --yes --base-url http://127.0.0.1:4011',
    '<%= config.bin %> reset --yes --json',
  ];
  static override flags = {
    yes: Flags.boolean({
      char: 'y',
      summary: 'Do not ask for confirmation (needed when not on a terminal).',
      default: false,
    }),
    ...storeFlags,
  };
}
