import { type SpawnOptions, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { projectRoot } from './cli.js';

export interface Ran {
  /** null when the process was killed (by `timeout`). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, stdin given (or empty), stdout and stderr kept as text. */
export function run(
  command: string,
  args: readonly string[],
  options: SpawnOptions & { input?: string } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input ?? '');
  });
}

/** How long an install may take: npm fetches every package from the registry. */
export const INSTALL_MS = 15 * 60_000;

/**
 * npm's environment for installing the package as a user's machine with no build tools would:
 * the running Node (the matrix runs each version) and PATH's npm alone on PATH, with a shell for
 * npm's scripts, so that a compile would find no compiler, make or Python, and no Node headers
 * (npm_config_nodedir names a folder that is not there): the install must compile nothing. A
 * cache inside `dir` (nothing cached outside it).
 */
export function npmEnvIn(dir: string): NodeJS.ProcessEnv {
  const tools = path.join(dir, 'npm-tools');
  if (!existsSync(tools)) {
    mkdirSync(tools, { recursive: true });
    symlinkSync(process.execPath, path.join(tools, 'node'));
    for (const tool of ['npm', 'npx']) {
      const found = (process.env.PATH ?? '')
        .split(path.delimiter)
        .map((folder) => path.join(folder, tool))
        .find((file) => existsSync(file));
      if (found !== undefined) symlinkSync(found, path.join(tools, tool));
    }
    symlinkSync('/bin/sh', path.join(tools, 'sh'));
  }
  return {
    ...process.env,
    PATH: tools,
    npm_config_nodedir: path.join(dir, 'no-node-headers'),
    npm_config_cache: path.join(dir, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_yes: 'true',
  };
}

export interface PackedFile {
  path: string;
}

/**
 * `npm pack` of this checkout into `dir`, as users get it. dist/ is what the build made just
 * before (`npm test` and `npm run test:e2e` build first), so `prepare` is not run again.
 */
export async function packPackage(
  dir: string,
): Promise<{ tarball: string; files: PackedFile[]; size: number; unpackedSize: number; entryCount: number }> {
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: projectRoot,
    env: npmEnvIn(dir),
  });
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout);
  const version: string = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).version;
  return { ...packed, tarball: path.join(dir, `plants-${version}.tgz`) };
}
