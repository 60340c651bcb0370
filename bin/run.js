#!/usr/bin/env node
// The whole of plants' start-up is typed code under src/entry/ (main.ts), bundled to dist/fast/entry.cjs.
// First, in words every Node can run: a Node older than package.json's engines gets one line, not
// a crash inside a package that needs a newer one, unless this is a clone whose npm ci installed
// the project's own Node (package.json's `node`), which then runs plants in its place.
import { createRequire } from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  const { existsSync } = await import('node:fs');
  const projectNode = new URL('../node_modules/node/bin/node', import.meta.url);
  if (!existsSync(projectNode)) {
    process.stderr.write(
      `plants needs Node.js 22.19 or later (22, 24 or 26); this is Node.js ${process.versions.node}.\n`,
    );
    process.exit(1);
  }
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const child = spawn(fileURLToPath(projectNode), [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  // A terminal's Ctrl-C reaches both: plants handles it, this one waits for it; a signal sent to
  // this process alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
} else {
  await createRequire(import.meta.url)('../dist/fast/entry.cjs').main(process.argv.slice(2), { bin: import.meta.url });
}
