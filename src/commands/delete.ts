import { Args, Flags } from '@oclif/core';
import { connectionFlags, PlantsCommand } from '../cli/base-command.js';
import { requestFlags } from '../cli/request-flags.js';

export class Delete extends PlantsCommand {
  static override summary = 'Delete one plant.';
  static override description =
    `On a terminal it asks first (--yes skips the question); when piped or scripted it never asks. Exit 1 with a clear message when there is no plant with that id.`;
  static override aliases = ['plant:delete'];
  static override examples = ['<%= config.bin %> delete 1', '<%= config.bin %> delete 1 --yes'];
  static override args = {
    id: Args.string({ description: 'The id of the plant (a 64-bit integer).', required: true }),
  };
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Do not ask for confirmation.', default: false }),
    ...connectionFlags,
    ...requestFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Delete);
    const { deletePlant } = await import('../cli/actions/delete-plant.js');
    await deletePlant(args.id, { ...this.clientRequest(flags), yes: flags.yes }, this.factory, this.output);
  }
}
