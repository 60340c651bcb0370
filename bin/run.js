#!/usr/bin/env node
// The whole of plants' start-up is typed code under src/entry/ (main.ts), bundled to dist/fast/entry.cjs.
import { createRequire } from 'node:module';

await createRequire(import.meta.url)('../dist/fast/entry.cjs').main(process.argv.slice(2), { bin: import.meta.url });
