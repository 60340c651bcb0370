import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { oclifUserAgent } from './oclif-user-agent.js';

/** The width oclif renders help at for a pipe (and an 80-column terminal). */
export const ROOT_HELP_WIDTH = 80;

/** `plants --help` as oclif rendered it at build time (write-root-help.ts), around its VERSION line; bin/run.js answers with it. */
export interface RootHelp {
  /** rootHelpInputsHash at build time. */
  inputs: string;
  before: string;
  after: string;
}

/** What oclif renders the root help from that can change after the build: the manifest, the autocomplete plugin. */
export function rootHelpInputsHash(packageRoot: URL): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(new URL('oclif.manifest.json', packageRoot)));
  hash.update(readFileSync(new URL('package.json', packageRoot)));
  return hash.digest('hex');
}

/**
 * `plants --help` from the build's snapshot, or undefined where oclif could render it otherwise
 * (then oclif answers): another width (a terminal not 80 columns wide, OCLIF_COLUMNS), a theme
 * (theme.json in plants' config folder), DEBUG (oclif's debug lines), another manifest than the
 * build's, or a VERSION line long enough to wrap.
 */
export function rootHelpText(packageRoot: URL, version: string, env: NodeJS.ProcessEnv): string | undefined {
  const userAgent = oclifUserAgent(version);
  if (userAgent === undefined) return undefined;
  const width = process.stdout.isTTY ? process.stdout.columns : ROOT_HELP_WIDTH;
  if (width !== ROOT_HELP_WIDTH || Number.parseInt(env.OCLIF_COLUMNS ?? '', 10) || env.DEBUG) return undefined;
  if (userAgent.length > ROOT_HELP_WIDTH - 2 || hasTheme(env)) return undefined;
  let snapshot: RootHelp;
  try {
    snapshot = JSON.parse(readFileSync(new URL('dist/fast/root-help.json', packageRoot), 'utf8')) as RootHelp;
  } catch {
    return undefined;
  }
  if (snapshot.inputs !== rootHelpInputsHash(packageRoot)) return undefined;
  return `${snapshot.before}${userAgent}${snapshot.after}`;
}

/** A theme.json where oclif may look for one (PLANTS_CONFIG_DIR, the XDG or Windows config folder). */
function hasTheme(env: NodeJS.ProcessEnv): boolean {
  const folders = [
    env.PLANTS_CONFIG_DIR,
    env.XDG_CONFIG_HOME && path.join(env.XDG_CONFIG_HOME, 'plants'),
    env.LOCALAPPDATA && path.join(env.LOCALAPPDATA, 'plants'),
    env.HOME && path.join(env.HOME, '.config', 'plants'),
    path.join(os.homedir(), '.config', 'plants'),
  ];
  return folders.some((folder) => folder && existsSync(path.join(folder, 'theme.json')));
}
