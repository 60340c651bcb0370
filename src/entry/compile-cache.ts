import module from 'node:module';
import { isBulkAdd } from './bulk-heap.js';

/**
 * Keeps V8's compiled code between runs in the user's cache folder (the package may be read-only);
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. The fast route's bundle has its own cache (loadBundle).
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
  /** Changes whenever the text does: a cache of another never meets it. */
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
 * A CommonJS bundle compiled as a vm.Script with V8's code of the last run, one cache file per
 * command (V8 reads a whole cache). Unlike Node's module cache, written before a script runs, this
 * one is written after the command ran, so it holds the functions compiled lazily; once, as making
 * it again costs more than it spares. A failed run's cache (a mistyped `login` token) lacks the
 * success path: it is kept under a name of its own until a run succeeds.
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
  // Other installs and other Nodes sharing the folder keep their own caches.
  const prefix = `bundle-${command}-${pathTag(file)}-${process.versions.v8}-`;
  const cacheName = `${prefix}${process.arch}-${bundle.stamp}.v8cache`;
  const failedName = cacheName.replace(/\.v8cache$/, '.failed.v8cache');
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
        // Older bundles' caches, and a failed run's, would never be read again.
        for (const name of readdirSync(cacheFolder)) {
          if (name.startsWith(prefix) && name !== written) {
            rmSync(path.join(cacheFolder, name), { force: true });
          }
        }
      } catch {
        // An unwritable folder: the next run compiles from source.
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
