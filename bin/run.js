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

// Node 22.1+: keep V8's compiled code of our modules between runs, in the user's cache folder
// (never in the package, which may be read-only); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
if (typeof module.enableCompileCache === 'function') {
  const { default: envPaths } = await import('env-paths');
  module.enableCompileCache(`${envPaths('plants', { suffix: '' }).cache}/compile-cache`);
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

const { runFastPath } = await import(new URL('../dist/fast/fast-path.js', import.meta.url).href);
if (!(await runFastPath(argv, new URL('../package.json', import.meta.url)))) {
  const { maskSecretsInDebugOutput } = await import(new URL('../dist/cli/secrets.js', import.meta.url).href);
  await maskSecretsInDebugOutput(argv, new URL('../oclif.manifest.json', import.meta.url));
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
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
