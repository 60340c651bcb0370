#!/usr/bin/env node
// A reader that goes away (`plants status | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const argv = process.argv.slice(2);
const { runFastPath } = await import(new URL('../dist/fast/fast-path.js', import.meta.url).href);
if (!(await runFastPath(argv, new URL('../package.json', import.meta.url)))) {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
