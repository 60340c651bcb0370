#!/usr/bin/env node
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);

// A bulk add promises flat memory (README: under 120 MB, 1,000,000 records, every Node of the
// matrix). About half of the peak is not ours to shrink: the node binary's pages (~49 MB on Node
// 22 to 26, ~42 on 20) and malloc. The rest is V8's heap, whose defaults let a long run grow past
// the promise: the young generation to 32 MB (Node 20, 22) or 128 MB (24+), the old one by up to
// 4x its live size after each full collection, ~36 MB of garbage promoted from requests in flight
// before the first one, Maglev keeping more code, and (from 24) `--liftoff-only` set at run time
// (undici-agent.ts) no longer reaching the WebAssembly HTTP parser, which TurboFan then compiles.
// So a bulk add runs with a young generation of 8 MB (4 MB semi-spaces), an old one that grows
// by at most BULK_OLD_GROWTH_PERCENT, and the rest. V8 reads the sizes only at start-up: where
// Node can (process.execve, 22.15+ and 24+) the run starts again in place with the flags (the
// same process, nothing left waiting); elsewhere (Node 20, 22.12-22.14) what V8 reads while
// running is set instead (keepHeapSmallWhileRunning). Peak RSS before: 100,000 records, Node
// 22.23 118-129 MB, Node 20.20 108-123 MB; after: 1,000,000 records, Node 20.20 72 MB, 22.23
// 98 MB, 24.21 100 MB, 26.10 99 MB (the bench at 7fa6fb9, README).
// Not --optimize-for-size (which bulk adds once set as they began): it made every full collection
// one that shrinks the heap, the young generation included, whenever the first came after it was
// set (a race with start-up: always on a terminal, whose spinner's timer delays the run), and it
// cost 23.4 against 19.8 us of CPU a record on 1,000,000 records (Node 20.20) for nothing the
// settings here do not already hold.
const BULK_OLD_GROWTH_PERCENT = 50;
// Without execve (Node 20) the old generation grows by this much while running (below): at 50
// or 100 set at run time, V8 marked the old generation almost without pause and promoted what
// was in flight, 0.55-1.6 MB at each young collection against 0.02-0.2 MB (Node 20.20, 100,000
// records); 150 kept 1,000,000 records at 95 MB (200: 102 MB; V8's own growth: 121 MB), when
// bulk adds still went through oclif (1b2ee88); through the fast path, 72 MB (the bench).
const BULK_OLD_GROWTH_PERCENT_WHILE_RUNNING = 150;
const BULK_YOUNG_MB = 8;
const BULK_FLAGS = [
  `--max-semi-space-size=${BULK_YOUNG_MB / 2}`,
  '--initial-old-space-size=32',
  `--heap-growing-percent=${BULK_OLD_GROWTH_PERCENT}`,
  '--no-maglev',
  '--liftoff-only',
];
if (isBulkAdd(argv) && !heapSizesGiven()) {
  if (canRestartInPlace()) {
    process.execve(process.execPath, [
      process.execPath,
      ...BULK_FLAGS,
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      ...argv,
    ]);
  }
  await keepHeapSmallWhileRunning();
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
    // oclif's Config.userAgent (x86 for ia32; under WSL oclif's own answer, `wsl-…`).
    const { oclifUserAgent } = await import(new URL('../dist/cli/help/oclif-user-agent.js', import.meta.url).href);
    const userAgent = oclifUserAgent(version);
    if (userAgent === undefined) return false;
    process.stdout.write(`${userAgent}\n`);
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

/** Heap sizes of the user's own (NODE_OPTIONS, node's flags): theirs are kept. */
function heapSizesGiven() {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some(
    (arg) =>
      arg.includes('--max-semi-space-size') ||
      arg.includes('--initial-old-space-size') ||
      arg.includes('--heap-growing-percent'),
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
  // A bulk add runs with other V8 flags (above), and V8 refuses a cache made under other flags:
  // one file of its own, or a bulk add and a one-record add would each rewrite the other's.
  const cacheName = isBulkAdd(argv) ? 'add-file' : fastPathCommand(argv);
  const cacheFile = path.join(
    compileCacheDir,
    `fast-path-${cacheName}-${process.versions.v8}-${process.arch}-${size}-${Math.trunc(mtimeMs)}.v8cache`,
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

/** Node 22.15+ or 24+ (process.execve), not on Windows (where it does not exist either). */
function canRestartInPlace() {
  return typeof process.execve === 'function' && process.platform !== 'win32';
}

/**
 * Without execve: V8 reads the heap's sizes only at start-up, but the young generation's growth
 * factor at each growth and the old generation's at each full collection, so the young
 * generation stays at the size it starts with (1 MB semi-spaces: its young collections are then
 * ~0.2 ms each, and promote almost nothing) and the old one grows by
 * BULK_OLD_GROWTH_PERCENT_WHILE_RUNNING. Measured on Node 20.20 with the server on one core and
 * the client on the other, 100,000 records: 15.3-15.7 us of client CPU a record and 2.2-2.3 s,
 * against 17.9-18.6 us and 2.5-2.6 s when the young generation was held at 8 MB by hand
 * (perf_hooks 'gc' entries) with the old one growing by 100%; 1,000,000 records: 14.1 us, peak
 * RSS 95 MB (at 1b2ee88, through oclif).
 */
async function keepHeapSmallWhileRunning() {
  const { default: v8 } = await import('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString(`--heap-growing-percent=${BULK_OLD_GROWTH_PERCENT_WHILE_RUNNING}`);
}
