import { Flags } from '@oclif/core';
import { listPlants } from '../cli/actions/list-plants.js';
import { PlantsCommand, storeFlags } from '../cli/base-command.js';

export class List extends PlantsCommand {
  static override action = listPlants;
  static override summary = 'List the plants in the store, by id.';
  static override description =
    `A table on a terminal; NDJSON (one plant a line, ids digit for digit) when piped or with --json. --all follows the pages to the end and prints them as they come, so a store of any size lists in flat memory:
  plants list --all --json | plants add --file - --base-url OTHER   # copies a store`;
  static override aliases = ['plant:list'];
  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> list --limit 10 --after 42',
    '<%= config.bin %> list --all --json > plants.ndjson',
    `<%= config.bin %> list --all --jq 'select(.tag == "herb") | .id'   # the herbs' ids, every digit`,
  ];
  static override flags = {
    limit: Flags.integer({ summary: 'Plants per page (the server caps it at 1000).', default: 100, min: 1, max: 1000 }),
    after: Flags.string({ summary: 'Start after this id (the cursor of the next page).', helpValue: 'ID' }),
    all: Flags.boolean({ summary: 'Follow the pages to the end.', default: false }),
    ...storeFlags,
  };
}
