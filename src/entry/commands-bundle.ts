import type { runCommand } from '../cli/run-command.js';
import { CHUNK_PREFIX } from './binary-assets.js';

/** The single executable's commands (src/cli/run-command.ts bundled by scripts/build-binary.mjs). */
export interface CommandsBundle {
  runCommand: typeof runCommand;
}

/** What a vm.Script needs of the compiled bundle: the build trains it, the binary runs it. */
export interface CompiledCommands {
  exports: CommandsBundle;
  /** V8's code of the bundle's functions compiled so far: the binary's code cache (a build asset). */
  createCachedData(): Buffer;
  /** The cache given was refused (another V8 or other flags): the bundle was compiled from source. */
  cacheRejected: boolean;
}

/**
 * The commands' bundle (CommonJS source), compiled with `cachedData` when given. The build
 * (scripts/build-binary.mjs) runs it through the commands users run most, then keeps the code V8
 * produced, lazily compiled functions included (a single executable's own code cache holds only
 * what compiles before the script runs); the binary compiles the bundle with that, the same
 * source in the same wrapper. Its require() gives Node's own modules, all the bundle needs, and
 * `plants-chunk:NAME`: a part the build kept out of a command's bundle because its usual run
 * never loads it (V8 reads all of a bundle it compiles), compiled from the source `chunk(NAME)`
 * gives on first need, without a code cache: a run that needs one is a rare run.
 */
export function compileCommands(
  source: string,
  cachedData: Buffer | undefined,
  chunk?: (name: string) => string,
): CompiledCommands {
  const chunks = new Map<string, unknown>();
  const require = (id: string): unknown => {
    if (chunk !== undefined && id.startsWith(CHUNK_PREFIX)) {
      const name = id.slice(CHUNK_PREFIX.length);
      if (!chunks.has(name)) {
        chunks.set(name, compileScript(chunk(name), undefined, `plants-chunk-${name}.cjs`, require).exports);
      }
      return chunks.get(name);
    }
    const found = process.getBuiltinModule(id);
    if (found === undefined) throw new Error(`the single executable has no module ${id}`);
    return found;
  };
  const bundle = compileScript(source, cachedData, 'plants-commands.cjs', require);
  return {
    exports: bundle.exports as CommandsBundle,
    createCachedData: bundle.createCachedData,
    cacheRejected: bundle.cacheRejected,
  };
}

/** One CommonJS script in the wrapper every bundle is compiled in, run at once. */
function compileScript(
  source: string,
  cachedData: Buffer | undefined,
  filename: string,
  require: (id: string) => unknown,
): { exports: unknown; createCachedData(): Buffer; cacheRejected: boolean } {
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(`(function (exports, require, module) {${source}\n})`, { filename, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module);
  return {
    exports: module.exports,
    createCachedData: () => script.createCachedData(),
    cacheRejected: cachedData !== undefined && script.cachedDataRejected === true,
  };
}
