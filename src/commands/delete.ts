import { Args, Flags } from '@oclif/core';
import { deletePlant } from '../cli/actions/delete-plant.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';

export class Delete extends PlantsCommand {
  static override action = deletePlant;
  static override summary = 'Delete one plant.';
  static override description =
    `On a terminal it asks first (--yes skips the question); when piped or scripted it never asks. Exit 1 with a clear message when there is no plant with that id. A delete that may have been made (sent with no whole answer, or answered that its outcome is unknown) is settled by reading the plant back: gone, it was deleted; not readable, exit 3. With --json, stdout holds one document: {"id":ID,"deleted":true} (false when the answer to the question was no), or the server's Error.`;
  static override aliases = ['plant:delete'];
  static override examples = [
    '<%= config.bin %> delete 1',
    '<%= config.bin %> delete 1 --yes',
    '<%= config.bin %> delete 1 --yes --json',
    '<%= config.bin %> delete 1 --yes --jq .deleted',
  ];
  static override args = {
    id: Args.string({ description: 'The id of the plant (a 64-bit integer).', required: true }),
  };
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Do not ask for confirmation.', default: false }),
    ...storeFlags,
  };
}
