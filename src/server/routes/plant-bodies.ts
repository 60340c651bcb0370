import { InvalidPlantError } from '../../schema/invalid-plant-error.js';
import { type NewPlant, parseNewPlantJson } from '../../schema/plant.js';
import { HttpError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A POST /plants body as the NewPlant it holds, or a 400 that says what is wrong with it. */
export function parsePlant(body: Buffer): NewPlant {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch (error) {
    throw new HttpError(400, 'request body is not valid UTF-8', { cause: error });
  }
  try {
    return parseNewPlantJson(text);
  } catch (error) {
    if (error instanceof InvalidPlantError) throw new HttpError(400, error.message, { cause: error });
    throw error;
  }
}

/** A stored plant as answered: id first, tag only when the plant has one. */
export function toWire(plant: NewPlant): { id: bigint; name: string; tag?: string } {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}
