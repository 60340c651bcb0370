import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** When a fixture is made and taken down: once for the file (or describe), or around each test. */
export type FixtureScope = 'file' | 'test';

/**
 * Registers `start` before the current suite's tests (before each test with scope 'test') and
 * `stop` after them, and returns a view of what `start` made: its properties read the current
 * one, so the view can be taken at the top of a file or describe and used in its tests and hooks.
 * Hooks registered later run their after-hooks first, so a fixture built on another (a user of a
 * store) is taken down before it.
 */
export function suiteFixture<T extends object>(
  scope: FixtureScope,
  start: () => T | Promise<T>,
  stop: (value: T) => void | Promise<void>,
): T {
  let current: T | undefined;
  const [before, after] = scope === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    current = await start();
  });
  after(async () => {
    const value = current;
    current = undefined;
    if (value !== undefined) await stop(value);
  });
  return new Proxy({} as T, {
    get(_target, key) {
      if (current === undefined) {
        // Not a thenable, and printable, before it starts.
        if (key === 'then' || typeof key === 'symbol') return undefined;
        throw new Error(`test fixture read (.${String(key)}) outside the tests and hooks of its suite`);
      }
      const value = Reflect.get(current, key, current);
      return typeof value === 'function' ? value.bind(current) : value;
    },
    has: (_target, key) => current !== undefined && key in current,
  });
}
