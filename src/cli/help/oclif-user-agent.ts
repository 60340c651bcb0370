import { readFileSync } from 'node:fs';
import os from 'node:os';

/** oclif's Config.userAgent, or undefined under what oclif may take for WSL (platform `wsl`): oclif answers. */
export function oclifUserAgent(version: string): string | undefined {
  return mayBeWsl() ? undefined : userAgent(version);
}

/** The same, WSL taken as Linux, for the single executable. */
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
