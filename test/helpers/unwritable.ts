import { execFileSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';

/**
 * Makes a file or folder impossible to write, even for root: `chattr +i` (immutable) when
 * running as root, file modes otherwise. Returns how to undo it, or undefined when this
 * machine cannot do it (no chattr, a file system without the flag, no CAP_LINUX_IMMUTABLE).
 * Always undo it: an immutable file cannot even be deleted.
 */
export function makeUnwritable(target: string): { restore(): void } | undefined {
  if (process.getuid?.() !== 0) {
    const mode = statSync(target).mode & 0o777;
    chmodSync(target, statSync(target).isDirectory() ? 0o555 : 0o444);
    return { restore: () => chmodSync(target, mode) };
  }
  try {
    execFileSync('chattr', ['+i', target], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { restore: () => execFileSync('chattr', ['-i', target], { stdio: 'ignore' }) };
}
