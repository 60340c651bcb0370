import type { Get } from '../../commands/get.js';
import { type CommandRun, clientRequest } from '../command-run.js';

export const run: CommandRun<typeof Get> = async ({ args, flags }, { factory, output }) => {
  const { showPlant } = await import('../actions/show-plant.js');
  await showPlant(args.id, { ...clientRequest(flags), json: flags.json }, factory, output);
};
