import type { Reset } from '../../commands/reset.js';
import { type CommandRun, clientRequest } from '../command-run.js';

export const run: CommandRun<typeof Reset> = async ({ flags }, { factory, output }) => {
  const { resetStore } = await import('../actions/reset-store.js');
  await resetStore({ ...clientRequest(flags), yes: flags.yes, json: flags.json }, factory, output);
};
