import type { ClientRequest, Factory } from '../factory.js';
import type { Output } from '../render/output.js';

/** `plants get ID`: the plant as a human line, or with --json the body exactly as the server sent it. */
export async function showPlant(
  idText: string,
  options: ClientRequest & { json: boolean },
  factory: Factory,
  output: Output,
): Promise<void> {
  const { parsePlantIdText } = await import('../../schema/plant.js');
  const id = parsePlantIdText(idText);
  const client = await factory.plantClient(options);
  const found = await client.getPlant(id);
  if (options.json) {
    output.data(found.rawBody.trim());
    return;
  }
  const { renderPlant } = await import('../render/render-list.js');
  output.data(renderPlant(found.plant, output.color));
}
