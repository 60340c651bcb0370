import { Args } from '@oclif/core';
import { showPlant } from '../cli/actions/show-plant.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';

export class Get extends PlantsCommand {
  static override action = showPlant;
  static override summary = 'Show one plant.';
  static override description = 'Exit 1 with a clear message when there is no plant with that id.';
  static override aliases = ['plant:get'];
  static override examples = [
    '<%= config.bin %> get 1',
    '<%= config.bin %> get 9223372036854775807 --json',
    '<%= config.bin %> get 9223372036854775807 --jq .name',
  ];
  static override args = {
    id: Args.string({ description: 'The id of the plant (a 64-bit integer).', required: true }),
  };
  static override flags = storeFlags;
}
