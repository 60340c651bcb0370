/** Whether this process is plants' single executable (`npm run build:binary`) rather than the npm package. */
export function inSingleExecutable(): boolean {
  const sea = process.getBuiltinModule('node:sea') as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() === true;
}
