import type { Status } from '../../commands/status.js';
import { type CommandRun, clientRequest } from '../command-run.js';

export const run: CommandRun<typeof Status> = async ({ flags }, { factory, output }) => {
  const { showStatus } = await import('../actions/show-status.js');
  return showStatus({ ...clientRequest(flags), json: flags.json }, factory, output);
};
