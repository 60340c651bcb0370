import type { runCommand } from '../cli/run-command.js';

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
 * source in the same wrapper. Its require() gives Node's own modules, all the bundle needs.
 */
export function compileCommands(source: string, cachedData: Buffer | undefined): CompiledCommands {
  const vm = process.getBuiltinModule('node:vm');
  const script = new vm.Script(`(function (exports, require, module) {${source}\n})`, {
    filename: 'plants-commands.cjs',
    cachedData,
  });
  const module = { exports: {} as CommandsBundle };
  const require = (id: string) => {
    const found = process.getBuiltinModule(id);
    if (found === undefined) throw new Error(`the single executable has no module ${id}`);
    return found;
  };
  script.runInThisContext()(module.exports, require, module);
  return {
    exports: module.exports,
    createCachedData: () => script.createCachedData(),
    cacheRejected: cachedData !== undefined && script.cachedDataRejected === true,
  };
}
