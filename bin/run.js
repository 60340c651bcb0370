#!/usr/bin/env node
import { execute } from '@oclif/core';

// A reader that goes away (`plants status | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

await execute({ dir: import.meta.url });
