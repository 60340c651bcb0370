/** What scripts/build-binary.mjs puts into the single executable beside its main script. */
export const BINARY_ASSETS = {
  version: 'version',
  routes: 'routes.json',
  help: 'help.json',
  /** The commands' bundle, and the code cache the build trained it to with all of them. */
  commands: 'commands.cjs',
  commandsCache: 'commands.v8cache',
} as const;

/**
 * For the commands users run most, a bundle of command `id` alone (its action and what that
 * loads, not the others' nor the server's) and the code cache the build trained it to.
 */
export function commandBundleAsset(id: string): string {
  return `commands-${id.replaceAll(':', '-')}.cjs`;
}

export function commandCacheAsset(id: string): string {
  return `commands-${id.replaceAll(':', '-')}.v8cache`;
}

/**
 * How a command's bundle requires a chunk: a part the build kept out of it (its usual run never
 * loads it), an asset of its own compiled on first need (commands-bundle.ts).
 */
export const CHUNK_PREFIX = 'plants-chunk:';

export function chunkAsset(name: string): string {
  return `chunk-${name}.cjs`;
}
