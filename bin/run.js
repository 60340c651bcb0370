#!/usr/bin/env node
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);

// A bulk add promises flat memory (README: under 120 MB). From Node 24, V8's defaults let a long
// run grow well past that: the young generation to 128 MB (Node 20 and 22 stop at 32), the old
// one to ~36 MB of garbage promoted from requests in flight before its first full collection,
// Maglev keeps more code, and `--liftoff-only` set at run time (undici-agent.ts) no longer
// reaches the WebAssembly HTTP parser, which TurboFan then compiles. V8 reads these flags only at
// start-up, so such a run starts again in place (execve: the same process, nothing left waiting)
// with them. 100,000 records, peak RSS: Node 24.21 151 -> 110 MB, Node 26.10 139 -> 109 MB, for
// about a fifth more CPU (3.7 -> 4.4 s); --initial-old-space-size=8 reached 100 MB but cost 70%.
const BULK_FLAGS = ['--max-semi-space-size=16', '--initial-old-space-size=32', '--no-maglev', '--liftoff-only'];
if (isBulkAdd(argv) && canRestartWithBulkFlags()) {
  process.execve(process.execPath, [
    process.execPath,
    ...BULK_FLAGS,
    ...process.execArgv,
    fileURLToPath(import.meta.url),
    ...argv,
  ]);
}

// Keep V8's compiled code of our modules between runs, in the user's cache folder (never in the
// package, which may be read-only); NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 22.1+ does
// it itself; on Node 20 loadFastPath keeps the fast path's (see there).
const compileCacheDir = await compileCacheFolder();
if (compileCacheDir !== undefined && typeof module.enableCompileCache === 'function') {
  module.enableCompileCache(compileCacheDir);
}

// stdout that cannot take what is written: stop at once, and say so in the exit code (README,
// Exit codes). A reader that went away (`plants list --all | head -1`) is 141, as a shell
// reports SIGPIPE, so that `set -o pipefail` sees it; anything else (a full disk) is one line
// and 74 (EX_IOERR), never a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(141);
  const words = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'file too large',
    EIO: 'input/output error',
    EBADF: 'it is not open for writing',
  };
  process.stderr.write(`plants: cannot write to stdout: ${words[error.code] ?? error.code ?? error.message}\n`);
  process.exit(74);
});

const packageJsonUrl = new URL('../package.json', import.meta.url);
if (!(await answerVersionOrRootHelp(argv))) {
  // The bundle's one import() of a package (ora, for a spinner: scripts/bundle.mjs), done here.
  globalThis[Symbol.for('plants.importModule')] = (specifier) => import(specifier);
  const fastPath =
    fastPathCommand(argv) === undefined
      ? undefined
      : await loadFastPath(fileURLToPath(new URL('../dist/fast/fast-path.cjs', import.meta.url)));
  if (await fastPath?.runFastPath(argv, packageJsonUrl)) {
    fastPath.saveCodeCache?.();
  } else {
    const { maskSecretsInDebugOutput } = await import(new URL('../dist/cli/secrets.js', import.meta.url).href);
    await maskSecretsInDebugOutput(argv, new URL('../oclif.manifest.json', import.meta.url));
    const { execute } = await import('@oclif/core');
    await execute({ dir: import.meta.url });
  }
}

/**
 * `plants --version` (as oclif prints it), and `plants --help` from oclif's own text rendered at
 * build time, where dist/cli/help/root-help.js finds it still oclif's answer: before anything
 * else is loaded, the fast path's bundle included. False: not answered here.
 */
async function answerVersionOrRootHelp(args) {
  if (args[0] !== '--version' && !(args.length === 1 && (args[0] === '--help' || args[0] === '-h'))) return false;
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(packageJsonUrl, 'utf8'));
  if (args[0] === '--version') {
    process.stdout.write(`plants/${version} ${process.platform}-${process.arch} node-${process.version}\n`);
    return true;
  }
  const { rootHelpText } = await import(new URL('../dist/cli/help/root-help.js', import.meta.url).href);
  const text = rootHelpText(new URL('.', packageJsonUrl), version, process.env);
  if (text === undefined) return false;
  process.stdout.write(text);
  return true;
}

/** `plants add` (or `plant add`) with `-f`/`--file`: many records. */
function isBulkAdd(args) {
  const command = args[0] === 'plant' ? args.slice(1) : args;
  return (
    command[0] === 'add' && command.some((arg) => arg === '--file' || arg.startsWith('--file=') || /^-f/.test(arg))
  );
}

/** Node 24 or newer, able to replace itself, and not started with heap sizes of the user's. */
function canRestartWithBulkFlags() {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some(
    (arg) => arg.includes('--max-semi-space-size') || arg.includes('--initial-old-space-size'),
  );
  return (
    !given &&
    Number(process.versions.node.split('.')[0]) >= 24 &&
    typeof process.execve === 'function' &&
    process.platform !== 'win32'
  );
}

/** Where compiled code is kept between runs; undefined with NODE_DISABLE_COMPILE_CACHE=1. */
async function compileCacheFolder() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  // Node 20 reads its own cache only for the fast path, where it pays: 85 of the 345 million
  // instructions of one `plants add` are compiling the bundle.
  if (typeof module.enableCompileCache !== 'function' && fastPathCommand(argv) === undefined) return undefined;
  const [{ default: envPaths }, { isAbsolute }] = await Promise.all([import('env-paths'), import('node:path')]);
  const cache = envPaths('plants', { suffix: '' }).cache;
  // With HOME empty it comes out relative: never the current folder (a git checkout, say).
  return isAbsolute(cache) ? `${cache}/compile-cache` : undefined;
}

/**
 * The command the fast path may answer (src/cli/fast-path.ts: its routes; it
 * decides), or undefined for one it never takes, which goes straight to oclif.
 */
function fastPathCommand(args) {
  const command = args[0] === 'plant' ? args[1] : args[0];
  return ['add', 'get', 'list', 'delete', 'status', 'login', 'logout'].includes(command) ? command : undefined;
}

/**
 * The fast path's bundle (one CommonJS file). Node 22+ keeps its compiled code itself (above).
 * Node 20 has no such cache, and compiling the bundle (undici, zod) was a quarter of what a
 * one-record `plants add` costs: there it is compiled as a vm.Script with the code V8 produced
 * the last time (`cachedData`), kept in the same folder as Node 22's cache, as Node 22 does.
 * V8 itself refuses a cache of another V8, other flags or another source length; the file name
 * holds the bundle's size and time, so that a reinstalled bundle never meets an old cache. One
 * file per command: V8 reads a whole cache, and `add`'s (530 kB) would cost `--version` 50
 * million instructions that its own (100 kB) does not.
 */
async function loadFastPath(file) {
  const require = module.createRequire(file);
  if (typeof module.enableCompileCache === 'function' || compileCacheDir === undefined) return require(file);
  const [{ mkdirSync, readFileSync, renameSync, statSync, writeFileSync }, vm, path] = await Promise.all([
    import('node:fs'),
    import('node:vm'),
    import('node:path'),
  ]);
  const source = readFileSync(file, 'utf8');
  const { size, mtimeMs } = statSync(file);
  const cacheFile = path.join(
    compileCacheDir,
    `fast-path-${fastPathCommand(argv)}-${process.versions.v8}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.v8cache`,
  );
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet (or unreadable): compiled from source, and written after the run.
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const bundle = { exports: {} };
  script.runInThisContext()(bundle.exports, require, bundle, file, path.dirname(file));
  if (cachedData !== undefined && !script.cachedDataRejected) return bundle.exports;
  return {
    ...bundle.exports,
    // After the command ran, so that the code of the functions it ran is in the cache too.
    saveCodeCache() {
      try {
        mkdirSync(compileCacheDir, { recursive: true, mode: 0o700 });
        // Written whole, then renamed: a run at the same time never reads half a file.
        const partial = `${cacheFile}.${process.pid}`;
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, cacheFile);
      } catch {
        // A cache folder we cannot write: the next run compiles from source, as this one did.
      }
    },
  };
}
