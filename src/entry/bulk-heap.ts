import { fileURLToPath } from 'node:url';

/**
 * A bulk add promises flat memory, which V8's default heap sizing does not keep (young generation
 * up to 128 MB, old one up to 4x its live size); V8 reads these only at start-up, hence execve.
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
 * Restarts a bulk add in place with BULK_FLAGS, or (without execve, or without a `script`: the
 * single executable takes no Node flags) sets what V8 reads while running.
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
  const v8 = process.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT_WHILE_RUNNING}`);
}

export function isBulkAdd(argv: readonly string[]): boolean {
  const command = argv[0] === 'plant' ? argv.slice(1) : argv;
  return (
    command[0] === 'add' && command.some((arg) => arg === '--file' || arg.startsWith('--file=') || /^-f/.test(arg))
  );
}

/** The user's own heap sizes (NODE_OPTIONS, node's flags) win. */
function heapSizesGiven(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some(
    (arg) =>
      arg.includes('--max-semi-space-size') ||
      arg.includes('--initial-old-space-size') ||
      arg.includes('--heap-growing-percent'),
  );
}
