#!/usr/bin/env node
// The whole of plants' start-up is typed code under src/entry/ (main.ts), bundled to dist/fast/entry.cjs.
// First, in words every Node can run: a Node older than package.json's engines gets one line, not
// a crash inside a package that needs a newer one.
import { createRequire } from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `plants needs Node.js 22.19 or later (22, 24 or 26); this is Node.js ${process.versions.node}.\n`,
  );
  process.exit(1);
}
await createRequire(import.meta.url)('../dist/fast/entry.cjs').main(process.argv.slice(2), { bin: import.meta.url });
