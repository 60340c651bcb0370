/** What the machine offers, asked without depending on anything else of the bench. */
import { execFileSync } from 'node:child_process';

export function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
