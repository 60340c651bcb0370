import type { ClientRequest, Factory } from '../factory.js';
import type { Output } from '../render/output.js';

/** `plants delete ID`: asks first on a terminal unless `yes`; never asks when piped or scripted. */
export async function deletePlant(
  idText: string,
  options: ClientRequest & { yes: boolean },
  factory: Factory,
  output: Output,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const id = parsePlantIdText(idText);
  const client = await factory.plantClient(options);
  const { canPrompt, confirm } = await import('../input/prompt.js');
  if (!options.yes && canPrompt(process.stdin, process.stderr)) {
    if (!(await confirm(`Delete plant ${id}? [y/N] `, process.stdin, process.stderr))) {
      // Like `rm -i`: answering no is not a failure.
      output.info('Not deleted.');
      return;
    }
  }
  await client.deletePlant(id);
  output.data(`${output.color.green('✓')} Deleted plant ${id}`);
}
