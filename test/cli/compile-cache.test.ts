import { existsSync, readdirSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, projectRoot, runCli } from '../helpers/cli.js';

// bin/run.js keeps V8's compiled code between runs where Node has module.enableCompileCache
// (22.1+): in the user's cache folder, never in the package.
let temp: ReturnType<typeof makeTempDir>;
let cacheHome: string;
beforeEach(() => {
  temp = makeTempDir();
  cacheHome = path.join(temp.dir, 'cache');
});
afterEach(() => temp.remove());

const hasCompileCache = 'enableCompileCache' in module;
const cacheDir = () => path.join(cacheHome, 'plants', 'compile-cache');
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

describe('the compile cache', () => {
  it.runIf(hasCompileCache)('is written to the user cache folder, and grows with what later runs load', async () => {
    const env = { XDG_CACHE_HOME: cacheHome, PLANTS_CONFIG_DIR: path.join(temp.dir, 'config') };
    expect((await runCli(['--version'], { env })).code).toBe(0);
    const written = filesUnder(cacheDir());
    expect(written.length).toBeGreaterThan(0);
    expect((await runCli(['status', '--json'], { env })).code).toBe(4);
    expect(filesUnder(cacheDir()).length).toBeGreaterThan(written.length);
    // Nothing in the package's own folders.
    expect(existsSync(path.join(projectRoot, 'compile-cache'))).toBe(false);
    expect(existsSync(path.join(projectRoot, 'node_modules', '.cache', 'plants'))).toBe(false);
  });

  it('is not written with NODE_DISABLE_COMPILE_CACHE=1, nor on a Node without one', async () => {
    const env = { XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: '1' };
    expect((await runCli(['--version'], { env })).code).toBe(0);
    expect(filesUnder(cacheDir())).toEqual([]);
    if (!hasCompileCache) {
      expect((await runCli(['--version'], { env: { XDG_CACHE_HOME: cacheHome } })).code).toBe(0);
      expect(filesUnder(cacheDir())).toEqual([]);
    }
  });
});
