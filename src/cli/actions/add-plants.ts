import type { Add } from '../../commands/add.js';
import type { ExitCode } from '../../errors.js';
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
  const { addPlantsInBulk } = await import('./bulk-session.js');
  const exitCode = await addPlantsInBulk(input, flags, { factory, output });
  // Stopped before the end of stdin (Ctrl-C, --fail-fast): a producer still writing must not keep us.
  if (flags.file === '-') io.stdin.destroy();
  return exitCode;
}
