import { fileURLToPath } from 'node:url';

/**
 * A bulk add (`add --file`) promises flat memory (docs: Performance), which V8's default heap
 * sizing does not keep: the young generation grows to 32 or 128 MB and the old one by up to 4x
 * its live size. V8 reads the sizes only at start-up, so where Node can (process.execve) the run
 * starts again in place with these flags; elsewhere it sets what V8 reads while running.
 */
const BULK_FLAGS = [
  '--max-semi-space-size=4',
  '--initial-old-space-size=32',
  '--heap-growing-percent=50',
  '--no-maglev',
  '--liftoff-only',
];

/** Without execve, the old generation's growth set while running: lower made V8 mark almost without pause. */
const OLD_GROWTH_PERCENT_WHILE_RUNNING = 150;

/**
 * Restarts a bulk add in place with BULK_FLAGS, or sets what can be set while running; nothing
 * for any other command. Without a `script` (the single executable, which takes no Node flags
 * on its command line) it only sets what can be set while running.
 */
export async function sizeHeapForBulkAdd(argv: readonly string[], script: URL | undefined): Promise<void> {
  if (!isBulkAdd(argv) || heapSizesGiven()) return;
  if (script !== undefined && process.platform !== 'win32') {
    process.execve?.(process.execPath, [
      process.execPath,
      ...BULK_FLAGS,
      ...process.execArgv,
      fileURLToPath(script),
      ...argv,
    ]);
  }
  // The young generation stays at the size it starts with, and the old one grows by a set share.
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT_WHILE_RUNNING}`);
}

/** `plants add` (or `plant add`) with `-f`/`--file`: many records. */
export function isBulkAdd(argv: readonly string[]): boolean {
  const command = argv[0] === 'plant' ? argv.slice(1) : argv;
  return (
    command[0] === 'add' && command.some((arg) => arg === '--file' || arg.startsWith('--file=') || /^-f/.test(arg))
  );
}

/** Heap sizes of the user's own (NODE_OPTIONS, node's flags) are kept. */
function heapSizesGiven(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some(
    (arg) =>
      arg.includes('--max-semi-space-size') ||
      arg.includes('--initial-old-space-size') ||
      arg.includes('--heap-growing-percent'),
  );
}
