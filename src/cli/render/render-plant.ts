import type { Plant, StoredPlant } from '../../schema/plant.js';
import type { Colors } from './colors.js';
import { hasTag } from './has-tag.js';
import { sanitizeForTerminal } from './output.js';

/** The human line for an added plant; the id is the one sent when the answer leaves it out. */
export function renderAddedPlant(plant: Plant, sentId: bigint, c: Colors): string {
  const id = plant.id ?? sentId;
  const tag = hasTag(plant) ? ` ${c.dim(`[${sanitizeForTerminal(plant.tag)}]`)}` : '';
  return `${c.green('✓')} Added plant ${id}: ${c.bold(sanitizeForTerminal(plant.name))}${tag}`;
}

/** The human line for a plant already stored exactly as given (`add --skip-existing`). */
export function renderExistingPlant(plant: StoredPlant, c: Colors): string {
  const tag = plant.tag === undefined ? '' : ` ${c.dim(`[${sanitizeForTerminal(plant.tag)}]`)}`;
  return `${c.green('✓')} Plant ${plant.id} is already there, exactly as given: ${c.bold(sanitizeForTerminal(plant.name))}${tag}`;
}
