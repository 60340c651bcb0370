import type { Add } from '../../commands/add.js';
import type { ExitCode } from '../../errors.js';
import type { PlantFlags } from '../input/plant-input.js';
import type { ActionContext, Parsed } from '../runner.js';

export interface AddPlantsOptions {
  /** --id, --name, --tag and --file. */
  plant: PlantFlags;
  json: boolean;
  baseUrl: string | undefined;
  insecure: boolean;
  timeoutSeconds: number;
  retries: number;
  caCert: string | undefined;
  /** With many records: most requests in flight. */
  concurrency: number;
  failFast: boolean;
  skipExisting: boolean;
}

/**
 * `plants add`: one plant (from the flags, or a file of one record), or a bulk add of many.
 * Resolves with a bulk add's exit code.
 */
export async function addPlants(
  { flags }: Parsed<typeof Add>,
  { factory, output }: ActionContext,
): Promise<ExitCode | undefined> {
  const options: AddPlantsOptions = {
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
  };
  const { readPlantInput } = await import('../input/plant-input.js');
  const { io } = factory;
  const input = await readPlantInput(
    options.plant,
    () => io.stdin,
    (line) => output.info(line),
    flags['dry-run'],
  );
  if (flags['dry-run'] && input.kind === 'bulk') {
    const { addDryRun } = await import('./add-dry-run.js');
    return addDryRun(input, output);
  }
  if (input.kind === 'single') {
    const { addSinglePlant } = await import('./add-single.js');
    await addSinglePlant(input.plant, options, factory, output);
    return undefined;
  }
  const bulk = await import('./bulk-session.js');
  const client = await factory.plantClient({
    flagBaseUrl: options.baseUrl,
    insecure: options.insecure,
    timeoutSeconds: options.timeoutSeconds,
    caCert: options.caCert,
    connections: options.concurrency,
  });
  const exitCode = await bulk.addPlantsInBulk({
    ...input,
    client,
    output,
    retry: { attempts: options.retries + 1 },
    concurrency: options.concurrency,
    failFast: options.failFast,
    skipExisting: options.skipExisting,
    // As long as one request may wait for its answer: a store silent that long is not there.
    silenceMs: options.timeoutSeconds * 1000,
  });
  // Stopped before the end of stdin (Ctrl-C, --fail-fast): a producer still writing must not keep us.
  if (options.plant.file === '-') io.stdin.destroy();
  return exitCode;
}
