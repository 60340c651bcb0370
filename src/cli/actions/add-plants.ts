import type { ExitCode } from '../../errors.js';
import type { PlantFlags } from '../input/plant-input.js';
import type { ActionContext } from '../runner.js';
import type { AddSingleFlags } from './add-single.js';
import type { BulkFlags } from './bulk-session.js';

export type AddFlags = PlantFlags & AddSingleFlags & BulkFlags & { 'dry-run': boolean };

/** `plants add`: one plant (from the flags, or a file of one record), or a bulk add of many. */
export async function addPlants(
  { flags }: { flags: AddFlags },
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
