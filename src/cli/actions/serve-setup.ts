import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { isLoopbackHost } from '../../client/base-url.js';
import type { PlantsEnv } from '../env.js';

/** The tokens `plants serve` accepts: every --token, else PLANTS_TOKEN, else one made up for this run. */
export function serveTokens(
  flagTokens: readonly string[] | undefined,
  env: PlantsEnv,
): { tokens: string[]; generated: boolean } {
  if (flagTokens !== undefined && flagTokens.length > 0) return { tokens: [...flagTokens], generated: false };
  if (env.token !== undefined) return { tokens: [env.token], generated: false };
  return { tokens: [randomBytes(24).toString('base64url')], generated: true };
}

/** `plants.db` in PLANTS_DATA_DIR, else in the user's data folder (XDG on Linux); the folder is made 0700. */
export async function defaultDatabasePath(env: PlantsEnv): Promise<string> {
  let dir = env.dataDir;
  if (dir === undefined) {
    const { default: envPaths } = await import('env-paths');
    dir = envPaths('plants', { suffix: '' }).data;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, 'plants.db');
}

/** True when tokens would cross the network in clear text: plain http on an address other machines reach. */
export function servesTokensInClear(host: string, tls: boolean): boolean {
  return !tls && !isLoopbackHost(host);
}

/**
 * How the person ran plants, so that the commands the banner suggests can be pasted as they
 * are: `plants` when it is on the PATH under that name, else the script's path (`./bin/run.js`
 * after `npm ci && npm start` in a clone).
 */
export function invocationName(script: string | undefined, cwd: string): string {
  if (script === undefined || path.basename(script) === 'plants') return 'plants';
  const relative = path.relative(cwd, script);
  return relative.startsWith('..') || path.isAbsolute(relative) ? script : `./${relative}`;
}
