import type { AsyncEntry } from '@napi-rs/keyring';
import { ExitCode, PlantsError } from '../errors.js';
import { inSingleExecutable } from '../single-executable.js';

/** A keyring that was there when the token was stored and no longer answers (locked, its service gone). Exit 4. */
export class KeyringError extends PlantsError {
  constructor(doing: string, cause: unknown) {
    super(`the OS keyring did not answer when ${doing}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      exitCode: ExitCode.auth,
      cause,
      hints: [
        'Unlock the keyring (on Linux: start its Secret Service, GNOME Keyring or KWallet), then run the command again.',
        'Or log in again with --insecure-storage to keep the token in the config file.',
      ],
    });
  }
}

/**
 * Undefined where no keyring answers: then the config file keeps the token. On Linux only a Secret
 * Service, never the kernel's keyutils, which would lose the token at reboot. The single executable
 * carries no native addon.
 */
async function keyringEntry(account: string): Promise<AsyncEntry | undefined> {
  if (inSingleExecutable()) return undefined;
  const { AsyncEntry } = await import('@napi-rs/keyring');
  try {
    return new AsyncEntry('plants', account, { linux: { store: 'secret-service' } });
  } catch {
    return undefined;
  }
}

/** KeyringError when the keyring the config says holds the token does not answer. */
async function answering<T>(account: string, doing: string, use: (entry: AsyncEntry) => Promise<T>): Promise<T> {
  try {
    const entry = await keyringEntry(account);
    if (entry === undefined) throw new Error('no keyring answers here now');
    return await use(entry);
  } catch (error) {
    throw new KeyringError(`${doing} the token of ${account}`, error);
  }
}

export const readKeyring = (account: string) =>
  answering(account, 'reading', async (entry) => (await entry.getPassword()) ?? undefined);

/** False when it was not there. */
export const deleteKeyring = (account: string) => answering(account, 'removing', (entry) => entry.deletePassword());

/** True, or why not (no keyring answers, or it refused the token). */
export async function writeKeyring(account: string, token: string): Promise<true | { why: string }> {
  if (inSingleExecutable()) return { why: 'the single executable keeps tokens in the file' };
  const entry = await keyringEntry(account);
  if (entry === undefined) return { why: 'no OS keyring answers here (on Linux: no Secret Service)' };
  try {
    await entry.setPassword(token);
    return true;
  } catch (error) {
    return { why: `the OS keyring did not take it (${error instanceof Error ? error.message : String(error)})` };
  }
}
