import type { NewPlant } from '../../schema/plant.js';
import type { Factory } from '../factory.js';
import type { Output } from '../render/output.js';

export interface SingleAddOptions {
  json: boolean;
  baseUrl: string | undefined;
  insecure: boolean;
  timeoutSeconds: number;
  retries: number;
}

/** Sends one plant and prints the answer: a human line, or with --json the body exactly. */
export async function addSinglePlant(
  plant: NewPlant,
  options: SingleAddOptions,
  factory: Factory,
  output: Output,
): Promise<void> {
  const client = await factory.plantClient({
    flagBaseUrl: options.baseUrl,
    insecure: options.insecure,
    timeoutSeconds: options.timeoutSeconds,
  });
  const retry = { attempts: options.retries + 1 };
  const added = await output.withSpinner(`Adding plant ${plant.id}`, () => client.addPlant(plant, { retry }));
  if (options.json) {
    output.data(added.rawBody.trim());
    return;
  }
  const { renderAddedPlant } = await import('../render/render-plant.js');
  output.data(renderAddedPlant(added.plant, plant.id, output.color));
}
