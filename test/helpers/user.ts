import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { type CliProcess, type CliResult, makeTempDir, type RunCliOptions, runCli, spawnCli } from './cli.js';
import { type FixtureScope, suiteFixture } from './fixture.js';

/** A store the user talks to: its base URL and, if it wants one, its token. */
export interface UserStore {
  url: string;
  token?: string;
}

export interface TempUserOptions {
  /** 'file' (default): one user for the file or describe it is declared in; 'test': a new one for each test. */
  scope?: FixtureScope;
  /** The token in PLANTS_TOKEN (default: the store's); false for none. */
  token?: string | false;
  /** More environment for every run (NO_COLOR, …). */
  env?: Record<string, string>;
}

export interface TempUser {
  /** The user's own temporary folder, HOME; removed afterwards. */
  dir: string;
  /** PLANTS_CONFIG_DIR, inside `dir` (not created: the CLI makes it). */
  configDir: string;
  /** The data folder `plants serve` keeps plants.db in by default (env-paths' under XDG_DATA_HOME; not created). */
  dataDir: string;
  /**
   * What a CLI run needs to be this user: HOME and the XDG folders inside `dir`, PLANTS_CONFIG_DIR,
   * and, with a store, PLANTS_BASE_URL and PLANTS_TOKEN.
   */
  env: Record<string, string>;
  /** Runs the built CLI to its end as this user (runCli); `options.env` adds to or overrides `env`. */
  run(args: readonly string[], options?: RunCliOptions): Promise<CliResult>;
  /** Starts the built CLI as this user (spawnCli), stdin left open. */
  spawn(args: readonly string[], options?: Omit<RunCliOptions, 'input'>): CliProcess;
}

// Node's compile cache is shared by every temporary user: a cold one for each would only slow runs down.
const sharedCache = path.join(tmpdir(), 'plants-test-cache');

/** A temporary user now (see useTempUser); `remove` takes its folder away. */
export function makeTempUser(
  store?: UserStore,
  options: Omit<TempUserOptions, 'scope'> = {},
): TempUser & {
  remove(): void;
} {
  const temp = makeTempDir('plants-user-');
  const configDir = path.join(temp.dir, 'config');
  mkdirSync(sharedCache, { recursive: true });
  // Read at each run, so a user made before its store (a store per test) gets the current one.
  const envNow = (): Record<string, string> => {
    const token = options.token === undefined ? store?.token : options.token || undefined;
    return {
      HOME: temp.dir,
      XDG_CONFIG_HOME: path.join(temp.dir, '.config'),
      XDG_DATA_HOME: path.join(temp.dir, '.local', 'share'),
      XDG_STATE_HOME: path.join(temp.dir, '.local', 'state'),
      XDG_CACHE_HOME: sharedCache,
      PLANTS_CONFIG_DIR: configDir,
      ...(store === undefined ? {} : { PLANTS_BASE_URL: store.url }),
      ...(token === undefined ? {} : { PLANTS_TOKEN: token }),
      ...options.env,
    };
  };
  const withEnv = <O extends { env?: RunCliOptions['env'] }>(more: O = {} as O): O => ({
    ...more,
    env: { ...envNow(), ...more.env },
  });
  return {
    dir: temp.dir,
    configDir,
    dataDir: path.join(temp.dir, '.local', 'share', 'plants'),
    get env() {
      return envNow();
    },
    run: (args, more) => runCli(args, withEnv(more)),
    spawn: (args, more) => spawnCli(args, withEnv(more)),
    remove: temp.remove,
  };
}

/**
 * A temporary user of `store` for the tests of the file or describe it is declared in: a folder
 * of its own as HOME and config folder, removed afterwards, and the CLI run as that user.
 *
 *   const user = useTempUser(store);
 *   const result = await user.run(['list', '--json']);
 *
 * `store` is read at each run, so a fixture store (useTestStore) of any scope works.
 */
export function useTempUser(store?: UserStore, { scope = 'file', ...options }: TempUserOptions = {}): TempUser {
  if (scope === 'test')
    return suiteFixture(
      scope,
      () => makeTempUser(store, options),
      (user) => user.remove(),
    );
  // One for the file: made now, as a folder made at the top of a file would be, so that paths in
  // it can be named while the tests are collected (it.each's cases).
  const user = makeTempUser(store, options);
  afterAll(() => user.remove());
  return user;
}
