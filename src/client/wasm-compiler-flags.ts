/**
 * undici parses HTTP with llhttp compiled to WebAssembly at the first connection. V8's
 * optimising compiler (TurboFan) spends more time and memory on it than a short command's
 * requests need, to parse a few hundred bytes per answer; the baseline compiler (Liftoff) alone
 * does the job at a fraction of the cost. Called before undici's first connection.
 */
export function useBaselineWasmCompiler(shortLived: boolean): void {
  try {
    v8().setFlagsFromString('--liftoff-only');
  } catch {
    // An engine without the flag keeps its default.
    return;
  }
  if (shortLived && !userSetWasmFlags()) flagsToRestore = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';
}

/** What restoreWasmCompilerFlags sets, once the run's requests are done; undefined: nothing. */
let flagsToRestore: string | undefined;

/**
 * A flag set at run time changes V8's flag hash, and V8 then refuses any code cache made with
 * the other one: the fast route's (src/entry/compile-cache.ts), made as the run ends, would never be taken. A
 * short run (one command of the fast route) puts the flags back once its requests are done (not
 * earlier: V8 compiles the parser's functions lazily, as requests first call them), with the two
 * that --liftoff-only turned off (on by default: V8's flag-definitions.h), so that the hash is
 * that of the start again. Bulk adds keep the flag: their parser would be tiered up as it warms.
 */
export function restoreWasmCompilerFlags(): void {
  if (flagsToRestore === undefined) return;
  v8().setFlagsFromString(flagsToRestore);
  flagsToRestore = undefined;
}

/** The user's own WebAssembly compiler flags (NODE_OPTIONS or node's arguments) stay as given. */
function userSetWasmFlags(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
    /liftoff|wasm-tier-up|wasm-dynamic-tiering/.test(arg),
  );
}

/** node:v8, loaded only by a run whose requests reach undici's parser (most adds never do). */
function v8(): typeof import('node:v8') {
  return process.getBuiltinModule('node:v8');
}
