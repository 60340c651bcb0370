import type { AddSettled } from '../../client/confirming-adder.js';
import type { NewPlant } from '../../schema/plant.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

export interface AddSingleFlags extends RequestOptions, JsonOptions {
  retries: number;
  'skip-existing': boolean;
}

/** Sends one plant and prints the answer; an add that may have been applied is settled by ConfirmingAdder. */
export async function addSinglePlant(
  plant: NewPlant,
  flags: AddSingleFlags,
  { factory, output }: ActionContext,
): Promise<void> {
  const client = await factory.plantClient(flags);
  const retry = { attempts: flags.retries + 1 };
  const settled = await output.withSpinner(`Adding plant ${plant.id}`, async (): Promise<AddSettled> => {
    try {
      return { kind: 'added', added: await client.addPlant(plant, { retry }) };
    } catch (error) {
      // Loaded only here: a shell loop of adds pays nothing for it.
      const { ConfirmingAdder } = await import('../../client/confirming-adder.js');
      const adder = new ConfirmingAdder({
        client,
        retry,
        skipExisting: flags['skip-existing'],
        onNoReadBack: (message) => output.info(`${output.errorColor.yellow('plants:')} ${message}`),
      });
      return adder.settle(plant, error);
    }
  });
  const rawBody = settled.kind === 'added' ? settled.added.rawBody : settled.rawBody;
  if (flags.json) {
    output.json([rawBody.trim()]);
  } else {
    const { renderAddedPlant, renderExistingPlant } = await import('../render/render-plant.js');
    output.data(
      settled.kind === 'added'
        ? renderAddedPlant(settled.added.plant, plant.id, output.color)
        : settled.kind === 'confirmed'
          ? renderAddedPlant(settled.plant, plant.id, output.color)
          : renderExistingPlant(settled.plant, output.color),
    );
  }
  if (settled.kind === 'confirmed') {
    output.info(
      output.errorColor.dim(
        `  Confirmed by reading it back after ${settled.attempts} attempt${settled.attempts === 1 ? '' : 's'}: the store holds it exactly as sent.`,
      ),
    );
  }
}
