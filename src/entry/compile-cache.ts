import module from 'node:module';
import { isBulkAdd } from './bulk-heap.js';

/**
 * Keeps V8's compiled code of plants between runs, in the user's cache folder (never in the
 * package, which may be read-only); NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node keeps
 * every module's itself (oclif's and serve's); the fast route's bundle, where compiling is a large
 * share of a short command's cost, is compiled with the code V8 produced the last time on every
 * Node (loadBundle).
 */
export async function enableCompileCache(): Promise<string | undefined> {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  const { default: envPaths } = await import('env-paths');
  const { isAbsolute } = process.getBuiltinModule('node:path');
  const cache = envPaths('plants', { suffix: '' }).cache;
  // With HOME empty it comes out relative: never the current folder (a git checkout, say).
  if (!isAbsolute(cache)) return undefined;
  const folder = `${cache}/compile-cache`;
  module.enableCompileCache(folder);
  return folder;
}

/** A CommonJS bundle to run: its text, where it is (a file, or the single executable), what it may require. */
export interface BundleSource {
  file: string;
  text: string;
  /** Changes whenever the text does (its size and time, its version): a cache of another never meets it. */
  stamp: string;
  require: (id: string) => unknown;
}

/** A bundle kept as a file (`text` read from it unless given), stamped with the file's size and time. */
export function bundleFile(file: string, text?: string, require?: BundleSource['require']): BundleSource {
  const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
  const { size, mtimeMs } = statSync(file);
  return {
    file,
    text: text ?? readFileSync(file, 'utf8'),
    stamp: `${size}-${Math.trunc(mtimeMs)}`,
    require: require ?? module.createRequire(file),
  };
}

/**
 * A CommonJS bundle, compiled as a vm.Script with the code V8 produced the last time
 * (`cachedData`) when there is a cache folder, one file per command (V8 reads a whole cache, and
 * one command's code would cost another to read): the file name holds the bundle's stamp, so a
 * reinstalled bundle never meets an old cache, and V8 refuses one of another V8 or other flags.
 * Node's own module cache, and the single executable's, are written when a script is
 * compiled, before it runs, so they lack every function compiled lazily on first call; this one
 * is written after the command ran. It is written once a command: making it again costs more than
 * the compiling it would spare. A cache written by a run that failed (a first `login` with a
 * mistyped token) lacks the code of the command's success, so it is kept under a name of its own
 * and replaced by the first run that succeeds.
 */
export async function loadBundle<T>(
  bundle: BundleSource,
  cacheFolder: string | undefined,
  argv: readonly string[],
): Promise<{ exports: T; saveCodeCache(succeeded: boolean): void }> {
  const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } =
    process.getBuiltinModule('node:fs');
  const vm = process.getBuiltinModule('node:vm');
  const path = process.getBuiltinModule('node:path');
  const { file } = bundle;
  // A bulk add runs with other V8 flags (bulk-heap.ts), whose cache V8 would refuse here.
  const command = isBulkAdd(argv) ? 'add-file' : (argv[0] === 'plant' ? argv[1] : argv[0])?.replace(/[^a-z-]/g, '');
  // The install (the bundle's path) and the V8 in the name: what a later build of the same install
  // on the same Node replaces, while other installs and other Nodes sharing the folder keep theirs.
  const prefix = `bundle-${command}-${pathTag(file)}-${process.versions.v8}-`;
  const cacheName = `${prefix}${process.arch}-${bundle.stamp}.v8cache`;
  const failedName = cacheName.replace(/\.v8cache$/, '.failed.v8cache');
  // None yet (or unreadable): compiled from source, and written after the run.
  const read = (name: string): Buffer | undefined => {
    if (cacheFolder === undefined) return undefined;
    try {
      return readFileSync(path.join(cacheFolder, name));
    } catch {
      return undefined;
    }
  };
  const ownCache = read(cacheName);
  const failedRunCache = ownCache === undefined ? read(failedName) : undefined;
  const cachedData = ownCache ?? failedRunCache;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${bundle.text}\n})`, {
    filename: file,
    cachedData,
  });
  const loaded = { exports: {} as T };
  script.runInThisContext()(loaded.exports, bundle.require, loaded, file, path.dirname(file));
  const accepted = cachedData !== undefined && !script.cachedDataRejected;
  return {
    exports: loaded.exports,
    // After the command ran, so that the code of the functions it ran is in the cache too;
    // `succeeded` (exit 0): its cache holds the code of the path users take most.
    saveCodeCache(succeeded) {
      if (cacheFolder === undefined || (accepted && !(failedRunCache !== undefined && succeeded))) return;
      const written = succeeded ? cacheName : failedName;
      try {
        mkdirSync(cacheFolder, { recursive: true, mode: 0o700 });
        // Written whole, then renamed: a run at the same time never reads half a file.
        const cacheFile = path.join(cacheFolder, written);
        const partial = `${cacheFile}.${process.pid}`;
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, cacheFile);
        // This command's caches of older bundles of this install on this Node would never be read
        // again, nor would one of a failed run once a run succeeded.
        for (const name of readdirSync(cacheFolder)) {
          if (name.startsWith(prefix) && name !== written) {
            rmSync(path.join(cacheFolder, name), { force: true });
          }
        }
      } catch {
        // A cache folder we cannot write: the next run compiles from source, as this one did.
      }
    },
  };
}

/** A short tag of a path (32-bit FNV-1a, hex): which install a cache belongs to, without loading node:crypto. */
function pathTag(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
