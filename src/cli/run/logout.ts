import type { Logout } from '../../commands/logout.js';
import type { CommandRun } from '../command-run.js';

export const run: CommandRun<typeof Logout> = async ({ flags }, { factory, output }) => {
  const { logOut } = await import('../actions/log-out.js');
  await logOut({ flagBaseUrl: flags['base-url'] }, factory, output);
};
