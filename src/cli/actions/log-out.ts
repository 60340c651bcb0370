import type { ConnectionOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

export async function logOut(
  { flags }: { flags: ConnectionOptions },
  { factory, output }: ActionContext,
): Promise<void> {
  const { logout } = await import('../../config/session.js');
  const config = await factory.config();
  const baseUrl = await factory.baseUrl(flags['base-url']);
  const result = await logout(config, baseUrl.value);
  const c = output.errorColor;
  output.info(
    result.removed
      ? `${c.green('✓')} Logged out of ${result.origin}${config.profile === 'default' ? '' : ` (profile ${config.profile})`}`
      : `No token was stored for ${result.origin}`,
  );
  if (result.defaultRestored !== undefined) {
    output.info(`The default store is the local one again: ${result.defaultRestored}`);
  }
}
