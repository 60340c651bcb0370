import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, runCli } from '../helpers/cli.js';
import { useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// The entry keeps V8's compiled code between runs: the fast route's bundle as a vm.Script's
// cachedData on every Node, and Node 22.1+ every other module itself (module.enableCompileCache);
// in the user's cache folder, never in the package.
const user = useTempUser(undefined, { scope: 'test' });
const store = useTestStore();
const storeUser = useTempUser(store, { scope: 'test' });
const cacheHome = () => path.join(user.dir, 'cache');

const hasCompileCache = 'enableCompileCache' in module;
const cacheDir = () => path.join(cacheHome(), 'plants', 'compile-cache');
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

describe('the compile cache', () => {
  it('is written to the user cache folder, and grows with what later runs load', async () => {
    const env = { XDG_CACHE_HOME: cacheHome() };
    expect((await user.run(['logout'], { env })).code).toBe(0);
    const written = filesUnder(cacheDir());
    expect(written.length).toBeGreaterThan(0);
    // (Not status: its exit code depends on whether something listens on 127.0.0.1:4010 here.)
    expect((await user.run(['get', '1', '--base-url', 'http://127.0.0.1:1'], { env })).code).toBe(3);
    // One cache file a command of the fast route: get's is new.
    const afterGet = filesUnder(cacheDir());
    expect(afterGet.length).toBeGreaterThan(written.length);
    expect(afterGet.some((name) => /^bundle-get-.*\.v8cache$/.test(name))).toBe(true);
    // Completion scripts come from oclif, whose modules Node 22+ keeps one file each.
    expect((await user.run(['autocomplete', 'bash'], { env })).code).toBe(0);
    if (hasCompileCache) expect(filesUnder(cacheDir()).length).toBeGreaterThan(afterGet.length);
    // Nothing in the package's own folders.
    expect(existsSync(path.join(projectRoot, 'compile-cache'))).toBe(false);
    expect(existsSync(path.join(projectRoot, 'node_modules', '.cache', 'plants'))).toBe(false);
  });

  it('is not written with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const env = { XDG_CACHE_HOME: cacheHome(), NODE_DISABLE_COMPILE_CACHE: '1' };
    expect((await runCli(['--version'], { env })).code).toBe(0);
    expect((await user.run(['logout'], { env })).code).toBe(0);
    expect(filesUnder(cacheDir())).toEqual([]);
  });

  it('is taken as written, and a damaged one is replaced', async () => {
    const env = { XDG_CACHE_HOME: cacheHome() };
    const first = await user.run(['logout'], { env });
    expect(first.code).toBe(0);
    const [name] = filesUnder(cacheDir());
    expect(name).toMatch(/^bundle-logout-.*\.v8cache$/);
    const file = path.join(cacheDir(), name ?? '');
    const written = readFileSync(file);
    const { mtimeMs } = statSync(file);
    // Taken: the next run answers the same and leaves the file as it is.
    const second = await user.run(['logout'], { env });
    expect([second.code, second.stdout, second.stderr]).toEqual([first.code, first.stdout, first.stderr]);
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
    // Damaged (V8 refuses it): the run answers the same, and writes a good one in its place.
    writeFileSync(file, Buffer.alloc(written.length, 7));
    const third = await user.run(['logout'], { env });
    expect([third.code, third.stdout, third.stderr]).toEqual([first.code, first.stdout, first.stderr]);
    expect(readFileSync(file).equals(Buffer.alloc(written.length, 7))).toBe(false);
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it("drops a command's caches of older bundles of the same install on the same Node, and nothing else", async () => {
    const env = { XDG_CACHE_HOME: cacheHome() };
    expect((await user.run(['logout'], { env })).code).toBe(0);
    const [written = ''] = filesUnder(cacheDir());
    // bundle-logout-TAG-V8-ARCH-SIZE-MTIME.v8cache: TAG names the install (the bundle's path).
    const found = /^bundle-logout-([0-9a-f]{8})-(.+)-x64-\d+-\d+\.v8cache$/.exec(written);
    expect(found, written).not.toBeNull();
    const [, tag, v8] = found as RegExpExecArray;
    const otherTag = tag === '00000000' ? '00000001' : '00000000';
    // An older build of this install on this Node: never read again.
    const stale = `bundle-logout-${tag}-${v8}-x64-1-1.v8cache`;
    const kept = [
      `bundle-logout-${tag}-9.9.9-x64-1-1.v8cache`, // this install on another Node
      `bundle-logout-${otherTag}-${v8}-x64-1-1.v8cache`, // another install (a global one, a checkout)
      `bundle-login-${tag}-${v8}-x64-1-1.v8cache`, // another command
      `bundle-add-file-${tag}-${v8}-x64-1-1.v8cache`,
    ];
    rmSync(path.join(cacheDir(), written));
    for (const name of [stale, ...kept]) writeFileSync(path.join(cacheDir(), name), 'old');
    expect((await user.run(['logout'], { env })).code).toBe(0);
    const left = filesUnder(cacheDir());
    expect(left).toContain(written);
    expect(left).not.toContain(stale);
    for (const name of kept) expect(left).toContain(name);
  });
  it("keeps a failed run's cache apart, and the first run that succeeds replaces it", async () => {
    const env = { XDG_CACHE_HOME: path.join(storeUser.dir, 'cache') };
    const dir = path.join(storeUser.dir, 'cache', 'plants', 'compile-cache');
    const getCaches = () => filesUnder(dir).filter((name) => name.startsWith('bundle-get-'));
    const id = '987654321987654321';
    // No such plant: exit 1, and a cache of that path alone.
    expect((await storeUser.run(['get', id], { env })).code).toBe(1);
    const [failed = ''] = getCaches();
    expect(getCaches()).toEqual([expect.stringMatching(/^bundle-get-.*\d\.failed\.v8cache$/)]);
    const { mtimeMs } = statSync(path.join(dir, failed));
    // Failing again: taken as it is.
    expect((await storeUser.run(['get', id], { env })).code).toBe(1);
    expect(getCaches()).toEqual([failed]);
    expect(statSync(path.join(dir, failed)).mtimeMs).toBe(mtimeMs);
    // The first success writes the command's own cache, and the failed run's goes.
    expect((await storeUser.run(['add', '--id', id, '--name', 'Fern'], { env })).code).toBe(0);
    const found = await storeUser.run(['get', id], { env });
    expect([found.code, found.stdout]).toEqual([0, expect.stringContaining('Fern')]);
    expect(getCaches()).toEqual([failed.replace(/\.failed\.v8cache$/, '.v8cache')]);
    const kept = statSync(path.join(dir, getCaches()[0] ?? '')).mtimeMs;
    // From then on, failing or not, that one is taken and kept.
    expect((await storeUser.run(['get', '5'], { env })).code).toBe(1);
    expect((await storeUser.run(['get', id], { env })).code).toBe(0);
    expect(getCaches()).toEqual([failed.replace(/\.failed\.v8cache$/, '.v8cache')]);
    expect(statSync(path.join(dir, getCaches()[0] ?? '')).mtimeMs).toBe(kept);
  });
});
