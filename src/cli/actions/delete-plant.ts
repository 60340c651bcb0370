import type { JsonOptions, RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

/** `plants delete ID`: asks first on a terminal unless `yes`; never asks when piped or scripted. */
export async function deletePlant(
  { args, flags }: { args: { id: string }; flags: RequestOptions & JsonOptions & { yes: boolean } },
  { factory, output }: ActionContext,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const id = parsePlantIdText(args.id);
  const client = await factory.plantClient(flags);
  const { io } = factory;
  if (!flags.yes && io.canPrompt()) {
    const { confirm } = await import('../input/prompt.js');
    if (!(await confirm(`Delete plant ${id}? [y/N] `, io))) {
      // Like `rm -i`: answering no is not a failure.
      output.info('Not deleted.');
      if (flags.json) output.json([`{"id":${id},"deleted":false}`]);
      return;
    }
  }
  const { deleteConfirmed } = await import('../../client/confirming-adder.js');
  const { confirmed } = await deleteConfirmed(client, id);
  if (flags.json) output.json([`{"id":${id},"deleted":true}`]);
  else output.data(`${output.color.green('✓')} Deleted plant ${id}`);
  if (confirmed) {
    output.info(output.errorColor.dim('  Confirmed by reading it back: the store no longer holds it.'));
  }
}
