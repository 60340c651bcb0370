import type { Delete } from '../../commands/delete.js';
import { type CommandRun, clientRequest } from '../command-run.js';

export const run: CommandRun<typeof Delete> = async ({ args, flags }, { factory, output }) => {
  const { deletePlant } = await import('../actions/delete-plant.js');
  await deletePlant(args.id, { ...clientRequest(flags), yes: flags.yes, json: flags.json }, factory, output);
};
