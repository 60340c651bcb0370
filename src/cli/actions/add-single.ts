import type { AddSettled } from '../../client/confirming-adder.js';
import type { NewPlant } from '../../schema/plant.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

/** What a one-plant add reads of `plants add`'s flags. */
export interface AddSingleFlags extends RequestOptions, JsonOptions {
  retries: number;
  'skip-existing': boolean;
}

/**
 * Sends one plant and prints the answer: a human line, or with --json the body exactly. A 409
 * on a retry (any 409 with --skip-existing) and an add any try of which may have been applied (no
 * whole answer, or an answer saying its outcome is unknown) are settled by reading the plant
 * back (see ConfirmingAdder); a plant confirmed that way is printed as the store holds it.
 */
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
      // Loaded only when the add did not simply succeed: a shell loop of adds pays nothing for it.
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
