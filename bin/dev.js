#!/usr/bin/env -S node --import tsx --no-warnings
// The same route as bin/run.js, from the TypeScript sources, without a build: `./bin/dev.js add --help`.
import { main } from '../src/entry/main.ts';

await main(process.argv.slice(2), { bin: import.meta.url, development: true });
