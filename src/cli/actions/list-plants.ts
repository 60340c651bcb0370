import type { PlantClient } from '../../client/plant-client.js';
import type { ClientRequest, Factory } from '../factory.js';
import type { Output } from '../render/output.js';
import { plantJsonLine, renderPlantRows } from '../render/render-list.js';

export interface ListOptions {
  limit: number;
  after: bigint | undefined;
  /** Follow the pages to the end. */
  all: boolean;
  /** NDJSON even on a terminal. */
  json: boolean;
}

/**
 * Prints plants: a table on a terminal, NDJSON when piped or with --json. With --all the
 * pages are followed and printed as they come, so any number of plants lists in flat memory.
 */
export async function printPlantList(client: PlantClient, output: Output, options: ListOptions): Promise<void> {
  const table = !options.json && output.stdout.isTTY === true;
  let page = await client.listPage({ limit: options.limit, after: options.after });
  let first = true;
  for (;;) {
    if (table) {
      if (first && page.plants.length === 0) output.info('No plants.');
      else if (page.plants.length > 0) {
        for (const row of renderPlantRows(page.plants, output.stdout.columns || 80, output.color, first))
          output.data(row);
      }
    } else {
      for (const plant of page.plants) output.data(plantJsonLine(plant));
    }
    first = false;
    if (page.next === undefined) return;
    if (!options.all) {
      const last = page.plants.at(-1);
      if (table && last !== undefined) output.info(output.errorColor.dim(`More: --all, or --after ${last.id}`));
      return;
    }
    page = await client.listPage(page.next);
  }
}

/** `plants list`: the request flags and the `--after` cursor as typed, then printPlantList. */
export async function listPlants(
  options: ClientRequest & Omit<ListOptions, 'after'> & { afterText: string | undefined },
  factory: Factory,
  output: Output,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const after = options.afterText === undefined ? undefined : parsePlantIdText(options.afterText);
  const client = await factory.plantClient(options);
  await printPlantList(client, output, { limit: options.limit, after, all: options.all, json: options.json });
}
