import { ResponseError } from '../../client/errors.js';
import type { PlantClient, PlantPage } from '../../client/plant-client.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import type { Output } from '../render/output.js';
import { plantJsonLine, renderPlantRows } from '../render/render-plant.js';
import type { ActionContext } from '../runner.js';

export interface ListOptions {
  limit: number;
  after: bigint | undefined;
  all: boolean;
  json: boolean;
  /** The first page, already fetched (`plants reset` gets it as the answer to the reset). */
  first?: PlantPage;
}

/** Prints plants as the pages come (flat memory), a table on a terminal; resolves with how many. */
export async function printPlantList(client: PlantClient, output: Output, options: ListOptions): Promise<number> {
  const table = !options.json && output.stdout.isTTY === true;
  let page = options.first ?? (await client.listPage({ limit: options.limit, after: options.after }));
  let printed = 0;
  let lastId: bigint | undefined;
  for (let pages = 1; ; pages++) {
    // A next link that repeats ids (or an empty page that points on) would have `--all` loop for ever.
    const firstId = page.plants[0]?.id;
    if (
      (firstId !== undefined && lastId !== undefined && firstId <= lastId) ||
      (page.plants.length === 0 && page.next !== undefined && pages > 1)
    ) {
      const repeats = lastId === undefined ? '' : ` (it repeats ids up to ${lastId})`;
      throw new ResponseError(
        `the server's next page does not move forward${repeats}; stopped after ${pages - 1} page${pages === 2 ? '' : 's'}`,
        { status: 200, body: { error: 200, message: 'the next page does not move forward' } },
      );
    }
    lastId = page.plants.at(-1)?.id ?? lastId;
    printed += page.plants.length;
    if (table) {
      if (pages === 1 && page.plants.length === 0) output.info('No plants.');
      else if (page.plants.length > 0) {
        for (const row of renderPlantRows(page.plants, output.stdout.columns || 80, output.color, pages === 1))
          output.data(row);
      }
    } else {
      output.json(page.plants.map(plantJsonLine));
    }
    if (page.next === undefined) return printed;
    if (!options.all) {
      const last = page.plants.at(-1);
      // Said on stderr in a pipe too: a script reading one page must not take it for the store.
      if (last !== undefined) {
        output.info(output.errorColor.dim(`More plants: --all lists every page, --after ${last.id} the next one.`));
      }
      return printed;
    }
    page = await client.listPage(page.next);
  }
}

export async function listPlants(
  { flags }: { flags: RequestOptions & JsonOptions & { limit: number; after?: string | undefined; all: boolean } },
  { factory, output }: ActionContext,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const after = flags.after === undefined ? undefined : parsePlantIdText(flags.after);
  const client = await factory.plantClient(flags);
  await printPlantList(client, output, { limit: flags.limit, after, all: flags.all, json: flags.json });
}
