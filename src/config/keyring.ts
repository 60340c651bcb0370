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

const SERVICE = 'plants';

/**
 * The token of `account` in the OS keyring (@napi-rs/keyring: the macOS Keychain, Windows
 * Credential Manager, a Secret Service on Linux), or undefined where no keyring answers: then
 * the config file keeps the token. On Linux only a Secret Service is taken (the binding's store
 * pinned to it: making the entry fails without one), never the kernel's keyutils, which would lose
 * the token at reboot. The single executable carries no native addon, so it always uses the file.
 */
export async function keyringEntry(account: string) {
  if (inSingleExecutable()) return undefined;
  const { AsyncEntry } = await import('@napi-rs/keyring');
  try {
    return new AsyncEntry(SERVICE, account, { linux: { store: 'secret-service' } });
  } catch {
    return undefined;
  }
}

/** The stored token of `account`, which the config says is in the keyring. */
export async function readKeyring(account: string): Promise<string | undefined> {
  const doing = `reading the token of ${account}`;
  const entry = await keyringEntry(account);
  if (entry === undefined) throw new KeyringError(doing, new Error('no keyring answers here now'));
  try {
    return (await entry.getPassword()) ?? undefined;
  } catch (error) {
    throw new KeyringError(doing, error);
  }
}

/** Stores the token in the keyring; false (and why) where no keyring answers or takes it. */
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

/** Removes the token from the keyring (false when it was not there). */
export async function deleteKeyring(account: string): Promise<boolean> {
  const doing = `removing the token of ${account}`;
  const entry = await keyringEntry(account);
  if (entry === undefined) throw new KeyringError(doing, new Error('no keyring answers here now'));
  try {
    return await entry.deletePassword();
  } catch (error) {
    throw new KeyringError(doing, error);
  }
}
