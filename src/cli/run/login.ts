import type { Login } from '../../commands/login.js';
import type { CommandRun } from '../command-run.js';

export const run: CommandRun<typeof Login> = async ({ flags }, { factory, output }) => {
  const { logIn } = await import('../actions/log-in.js');
  await logIn(
    {
      flagBaseUrl: flags['base-url'],
      token: flags.token,
      withToken: flags['with-token'],
      insecure: flags.insecure,
      timeoutSeconds: flags.timeout,
      caCert: flags['ca-cert'],
    },
    factory,
    output,
  );
};
