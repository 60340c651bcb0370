import type { List } from '../../commands/list.js';
import { type CommandRun, clientRequest } from '../command-run.js';

export const run: CommandRun<typeof List> = async ({ flags }, { factory, output }) => {
  const { listPlants } = await import('../actions/list-plants.js');
  await listPlants(
    { ...clientRequest(flags), limit: flags.limit, afterText: flags.after, all: flags.all, json: flags.json },
    factory,
    output,
  );
};
