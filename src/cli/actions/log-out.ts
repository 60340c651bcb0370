import type { Factory } from '../factory.js';
import type { Output } from '../render/output.js';

/**
 * `plants logout`: forgets the token of the origin of the base URL; other origins keep theirs.
 * Logged out of the default origin, the default is the local store again, and that is said.
 */
export async function logOut(options: { flagBaseUrl: string | undefined }, factory: Factory, output: Output) {
  const { logout } = await import('../../config/session.js');
  const config = await factory.config();
  const baseUrl = await factory.baseUrl(options.flagBaseUrl);
  const result = await logout(config, baseUrl.value);
  const c = output.errorColor;
  output.info(
    result.removed ? `${c.green('✓')} Logged out of ${result.origin}` : `No token was stored for ${result.origin}`,
  );
  if (result.defaultRestored !== undefined) {
    output.info(`The default store is the local one again: ${result.defaultRestored}`);
  }
}
