/** The `rel="next"` target of a Link header (RFC 8288), resolved against the page's URL. */
export function nextLink(header: string | undefined, base: URL): URL | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match === null) continue;
    const rels =
      /;\s*rel\s*=\s*"?([^";]+)"?/i
        .exec(match[2] ?? '')?.[1]
        ?.toLowerCase()
        .split(/\s+/) ?? [];
    if (!rels.includes('next')) continue;
    try {
      return new URL(match[1] ?? '', base);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
