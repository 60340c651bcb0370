/**
 * Whether a plant has a tag to show a person. An empty tag is valid (the interface sets no
 * minimum length), is stored as sent and printed exactly in JSON, but reads as no tag: `[]` or
 * an empty `tag` line would look like a fault.
 */
export function hasTag(plant: { tag?: string | undefined }): plant is { tag: string } {
  return plant.tag !== undefined && plant.tag !== '';
}
