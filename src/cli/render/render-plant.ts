import { stringifyJsonExact } from '../../schema/exact-json.js';
import type { Plant, StoredPlant } from '../../schema/plant.js';
import type { Colors } from './colors.js';
import { sanitizeForTerminal } from './output.js';

/** Whether a plant has a tag to show a person: an empty one (valid, kept in JSON) would look like a fault. */
function hasTag(plant: { tag?: string | undefined }): plant is { tag: string } {
  return plant.tag !== undefined && plant.tag !== '';
}

/** One plant as one NDJSON line, `id` first and digit for digit; `tag` only when set. */
export function plantJsonLine(plant: StoredPlant): string {
  return stringifyJsonExact(
    plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag },
  );
}

function fitCell(text: string, width: number): string {
  const clean = sanitizeForTerminal(text);
  if (clean.length <= width) return clean.padEnd(width);
  return width <= 1 ? '…'.slice(0, width) : `${clean.slice(0, width - 1)}…`;
}

/** Plants as table rows `columns` wide: the id in full, name and tag sharing the rest (the name first), cut with …. */
export function renderPlantRows(plants: readonly StoredPlant[], columns: number, c: Colors, header: boolean): string[] {
  const idWidth = Math.max(2, ...plants.map((plant) => String(plant.id).length));
  const room = Math.max(10, columns - idWidth - 4);
  const longestName = Math.max(4, ...plants.map((plant) => plant.name.length));
  const longestTag = Math.max(3, ...plants.map((plant) => plant.tag?.length ?? 0));
  const nameWidth = Math.min(longestName, Math.max(Math.ceil(room * 0.6), room - longestTag));
  const tagWidth = Math.max(3, Math.min(longestTag, room - nameWidth));
  const row = (id: string, name: string, tag: string) =>
    `${id.padStart(idWidth)}  ${fitCell(name, nameWidth)}  ${fitCell(tag, tagWidth)}`.trimEnd();
  const rows = plants.map((plant) => row(String(plant.id), plant.name, plant.tag ?? ''));
  return header ? [c.bold(row('ID', 'NAME', 'TAG')), ...rows] : rows;
}

export function renderPlant(plant: StoredPlant, c: Colors): string {
  const lines = [`${c.bold('id')}    ${plant.id}`, `${c.bold('name')}  ${sanitizeForTerminal(plant.name)}`];
  if (hasTag(plant)) lines.push(`${c.bold('tag')}   ${sanitizeForTerminal(plant.tag)}`);
  return lines.join('\n');
}

/** The id is the one sent when the answer leaves it out. */
export function renderAddedPlant(plant: Plant, sentId: bigint, c: Colors): string {
  const id = plant.id ?? sentId;
  const tag = hasTag(plant) ? ` ${c.dim(`[${sanitizeForTerminal(plant.tag)}]`)}` : '';
  return `${c.green('✓')} Added plant ${id}: ${c.bold(sanitizeForTerminal(plant.name))}${tag}`;
}

export function renderExistingPlant(plant: StoredPlant, c: Colors): string {
  const tag = plant.tag === undefined ? '' : ` ${c.dim(`[${sanitizeForTerminal(plant.tag)}]`)}`;
  return `${c.green('✓')} Plant ${plant.id} is already there, exactly as given: ${c.bold(sanitizeForTerminal(plant.name))}${tag}`;
}
