/**
 * ora, imported when a spinner first shows (on a terminal only). Its own module so that the fast
 * route's bundle can import it through the entry (scripts/bundle.mjs): the entry runs the bundle
 * as a vm.Script, where an import() of its own would need an experimental loader (and print
 * Node's ExperimentalWarning).
 */
export function importOra(): Promise<typeof import('ora')> {
  return import('ora');
}
