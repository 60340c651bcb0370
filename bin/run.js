#!/usr/bin/env node
// The whole of plants' start-up is typed code under src/entry/ (main.ts), bundled to dist/fast/entry.js.
import { main } from '../dist/fast/entry.js';

await main(process.argv.slice(2), { bin: import.meta.url });
