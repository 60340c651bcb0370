import { Flags } from '@oclif/core';
import { connectionFlags, jsonFlag, PlantsCommand } from '../cli/base-command.js';
import { requestFlags } from '../cli/request-flags.js';

export class Add extends PlantsCommand {
  static override summary = 'Add a plant to the store.';
  static override description =
    `Builds a NewPlant from --id, --name and --tag, or from a JSON file (--file PATH, or - for stdin) whose fields the flags override, checks it, and sends it to POST {base_url}/plants.

The id is a 64-bit integer and is sent digit for digit, up to 9223372036854775807.`;
  static override aliases = ['plant:add'];
  static override examples = [
    '<%= config.bin %> add --id 1 --name Fern --tag herb',
    '<%= config.bin %> plant add --id 9223372036854775807 --name Oak',
    '<%= config.bin %> add --file plant.json --tag shade',
    `echo '{"id": 2, "name": "Ivy"}' | <%= config.bin %> add --file - --json`,
  ];
  static override flags = {
    id: Flags.string({ summary: 'Id of the plant (a 64-bit integer).', helpValue: 'ID' }),
    name: Flags.string({ summary: 'Name of the plant.', helpValue: 'NAME' }),
    tag: Flags.string({ summary: 'Tag that says what type of plant it is.', helpValue: 'TAG' }),
    file: Flags.string({
      char: 'f',
      summary: 'Read the NewPlant as JSON from a file, or - for stdin.',
      helpValue: 'PATH',
    }),
    ...connectionFlags,
    ...requestFlags,
    ...jsonFlag,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Add);
    const { readNewPlant } = await import('../cli/plant-input.js');
    const newPlant = await readNewPlant(flags, process.stdin);
    const client = await this.factory.plantClient({
      flagBaseUrl: flags['base-url'],
      insecure: flags.insecure,
      timeoutSeconds: flags.timeout,
    });
    const added = await this.output.withSpinner(`Adding plant ${newPlant.id}`, () => client.addPlant(newPlant));
    if (flags.json) {
      this.output.data(added.rawBody.trim());
      return;
    }
    const { renderAddedPlant } = await import('../cli/render-plant.js');
    this.output.data(renderAddedPlant(added.plant, newPlant.id, this.output.color));
  }
}
