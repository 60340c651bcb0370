/**
 * A module of its own so that the fast bundle imports ora through the entry (scripts/bundle.mjs):
 * in a vm.Script, an import() would need an experimental loader (and print its warning).
 */
export function importOra(): Promise<typeof import('ora')> {
  return import('ora');
}
