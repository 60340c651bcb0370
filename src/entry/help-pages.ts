import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { oclifUserAgent } from '../cli/help/oclif-user-agent.js';

export const HELP_WIDTH = 80;

/**
 * Help as oclif rendered it at build time (build/write-entry-data.ts), keyed by the words that ask
 * for it (`''`, `plant add`). The root page's VERSION line is the running Node's: kept out, put back.
 */
export interface HelpPages {
  inputs: string;
  pages: Record<string, string>;
  root: { before: string; after: string };
}

/** What oclif renders help from that can change after the build: the manifest, package.json (its plugins). */
export async function helpInputsHash(packageRoot: URL): Promise<string> {
  const { createHash } = process.getBuiltinModule('node:crypto');
  const hash = createHash('sha256');
  hash.update(readFileSync(new URL('oclif.manifest.json', packageRoot)));
  hash.update(readFileSync(new URL('package.json', packageRoot)));
  return hash.digest('hex');
}

/**
 * The first of `subjects` from the build's pages, or undefined (oclif answers) where oclif could
 * render it otherwise: another width, OCLIF_COLUMNS, a theme.json, DEBUG, another manifest.
 */
export async function helpPage(
  pagesFile: URL,
  packageRoot: URL,
  subjects: readonly string[],
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const width = process.stdout.isTTY ? process.stdout.columns : HELP_WIDTH;
  if (width !== HELP_WIDTH || Number.parseInt(env.OCLIF_COLUMNS ?? '', 10) || env.DEBUG || hasTheme(env)) {
    return undefined;
  }
  let help: HelpPages;
  try {
    help = JSON.parse(readFileSync(pagesFile, 'utf8')) as HelpPages;
  } catch {
    return undefined;
  }
  return pageFrom(help, subjects, version, async () => help.inputs === (await helpInputsHash(packageRoot)));
}

/** The first of `subjects` from `help`, or undefined: no page, a VERSION line that would wrap, pages not `current`. */
export async function pageFrom(
  help: HelpPages,
  subjects: readonly string[],
  version: string,
  current: () => Promise<boolean>,
): Promise<string | undefined> {
  const subject = subjects.find((words) => words === '' || Object.hasOwn(help.pages, words));
  if (subject === undefined) return undefined;
  if (subject !== '') return (await current()) ? help.pages[subject] : undefined;
  const userAgent = oclifUserAgent(version);
  if (userAgent === undefined || userAgent.length > HELP_WIDTH - 2) return undefined;
  if (!(await current())) return undefined;
  return `${help.root.before}${userAgent}${help.root.after}`;
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
