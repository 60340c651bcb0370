import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SmallDisk {
  /** The mounted folder. */
  dir: string;
  /** Writes a filler file until the disk is full (ENOSPC). */
  fill(): void;
  /** Deletes the filler: the disk has room again. */
  free(): void;
  /** Unmounts and removes the folder. */
  remove(): void;
}

/**
 * A real file system that really fills up: a tmpfs of `sizeBytes`, mounted on a new temporary
 * folder. Needs root (CI runs as root); returns undefined elsewhere, and callers must not skip
 * when CI=true (see mountSmallDiskOrSkip in the tests).
 */
export function mountSmallDisk(sizeBytes: number): SmallDisk | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'plants-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      const chunk = Buffer.alloc(64 * 1024);
      // Whole chunks, then smaller and smaller ones, until not a byte more fits.
      for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
        try {
          for (;;) writeFileSync(filler, chunk.subarray(0, size), { flag: 'a' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        }
      }
    },
    free() {
      unlinkSync(filler);
    },
    remove() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
