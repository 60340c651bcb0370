/**
 * Whether this process is plants' single executable (binary/plants-linux-x64, `npm run
 * build:binary`) rather than Node running the npm package: where the two differ (the SQLite
 * driver, how plants starts itself again), they ask here.
 */
export function inSingleExecutable(): boolean {
  const sea = process.getBuiltinModule('node:sea') as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() === true;
}
