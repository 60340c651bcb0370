import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * `plants/VERSION PLATFORM-ARCH node-vN` as oclif's Config.userAgent writes it (`plants
 * --version`, the VERSION line of the root help), or undefined under what oclif may take for
 * WSL, where its platform is `wsl` and the answer is left to oclif.
 */
export function oclifUserAgent(version: string): string | undefined {
  return mayBeWsl() ? undefined : userAgent(version);
}

/** The same, WSL taken as Linux: where there is no oclif to say it (the single executable). */
export function userAgent(version: string): string {
  return `plants/${version} ${process.platform}-${process.arch === 'ia32' ? 'x86' : process.arch} node-${process.version}`;
}

/** What oclif's wsl-utils takes for WSL: "microsoft" in the kernel's release or /proc/version. */
function mayBeWsl(): boolean {
  if (process.platform !== 'linux') return false;
  if (os.release().toLowerCase().includes('microsoft')) return true;
  try {
    return readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft');
  } catch {
    return false;
  }
}
