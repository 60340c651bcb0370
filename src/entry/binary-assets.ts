/** What scripts/build-binary.mjs puts into the single executable beside its main script. */
export const BINARY_ASSETS = {
  version: 'version',
  routes: 'routes.json',
  help: 'help.json',
  /** The commands' bundle, and the code cache the build trained it to with all of them. */
  commands: 'commands.cjs',
  commandsCache: 'commands.v8cache',
} as const;

/** The code cache the build trained on command `id` alone (for the commands users run most). */
export function commandCacheAsset(id: string): string {
  return `commands-${id.replaceAll(':', '-')}.v8cache`;
}
