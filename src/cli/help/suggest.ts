/** Edit distance (insertions, deletions, substitutions) between two short words. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest of `candidates` to `word`, if it is close enough to be what was meant. */
export function closestCommand(word: string, candidates: readonly string[]): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const id of candidates) {
    const distance = editDistance(word, id);
    if (best === undefined || distance < best.distance) best = { id, distance };
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(word.length / 2)) ? best.id : undefined;
}
