import { binaryMain } from './binary-main.js';

// The single executable's main script (scripts/build-binary.mjs bundles it as CommonJS): in a
// single executable, process.argv is [executable, executable, ...arguments].
binaryMain(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`plants: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
