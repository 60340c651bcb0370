import type { Add } from '../../commands/add.js';
import type { CommandRun } from '../command-run.js';

export const run: CommandRun<typeof Add> = async ({ flags }, { factory, output }) => {
  const { addPlants } = await import('../actions/add-plants.js');
  return addPlants(
    {
      plant: { id: flags.id, name: flags.name, tag: flags.tag, file: flags.file },
      json: flags.json,
      baseUrl: flags['base-url'],
      insecure: flags.insecure,
      timeoutSeconds: flags.timeout,
      retries: flags.retries,
      caCert: flags['ca-cert'],
      concurrency: flags.concurrency,
      failFast: flags['fail-fast'],
      skipExisting: flags['skip-existing'],
    },
    factory,
    output,
  );
};
