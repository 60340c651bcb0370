import type { JsonOptions, RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

export async function showPlant(
  { args, flags }: { args: { id: string }; flags: RequestOptions & JsonOptions },
  { factory, output }: ActionContext,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const id = parsePlantIdText(args.id);
  const client = await factory.plantClient(flags);
  const found = await client.getPlant(id);
  if (flags.json) {
    output.json([found.rawBody.trim()]);
    return;
  }
  const { renderPlant } = await import('../render/render-plant.js');
  output.data(renderPlant(found.plant, output.color));
}
