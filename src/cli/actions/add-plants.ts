import type { Add } from '../../commands/add.js';
import type { ExitCode } from '../../errors.js';
import { clientRequest } from '../factory.js';
import type { ActionContext, Parsed } from '../runner.js';

/**
 * `plants add`: one plant (from the flags, or a file of one record), or a bulk add of many.
 * Resolves with a bulk add's exit code.
 */
export async function addPlants(
  { flags }: Parsed<typeof Add>,
  { factory, output }: ActionContext,
): Promise<ExitCode | undefined> {
  const { readPlantInput } = await import('../input/plant-input.js');
  const { io } = factory;
  const input = await readPlantInput(
    flags,
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
    await addSinglePlant(input.plant, flags, { factory, output });
    return undefined;
  }
  const bulk = await import('./bulk-session.js');
  const client = await factory.plantClient({ ...clientRequest(flags), connections: flags.concurrency });
  const exitCode = await bulk.addPlantsInBulk({
    ...input,
    client,
    output,
    retry: { attempts: flags.retries + 1 },
    concurrency: flags.concurrency,
    failFast: flags['fail-fast'],
    skipExisting: flags['skip-existing'],
    // As long as one request may wait for its answer: a store silent that long is not there.
    silenceMs: flags.timeout * 1000,
  });
  // Stopped before the end of stdin (Ctrl-C, --fail-fast): a producer still writing must not keep us.
  if (flags.file === '-') io.stdin.destroy();
  return exitCode;
}
