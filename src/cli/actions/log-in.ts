import type { Factory } from '../factory.js';
import type { Output } from '../render/output.js';

export interface LogInOptions {
  flagBaseUrl: string | undefined;
  /** `--token`. */
  token: string | undefined;
  /** `--with-token`: read it from stdin. */
  withToken: boolean;
}

/** `plants login`: stores the token for the origin of the base URL (made the default with --base-url). */
export async function logIn(options: LogInOptions, factory: Factory, output: Output): Promise<void> {
  const { obtainToken } = await import('../input/obtain-token.js');
  const token = await obtainToken(
    { token: options.token, withToken: options.withToken },
    process.stdin,
    process.stderr,
  );
  const { login } = await import('../../config/session.js');
  const config = await factory.config();
  const baseUrl = await factory.baseUrl(options.flagBaseUrl);
  const result = await login(config, {
    token,
    baseUrl: baseUrl.value,
    explicitBaseUrl: options.flagBaseUrl !== undefined,
  });
  const c = output.errorColor;
  output.info(
    `${c.green('✓')} Logged in to ${result.origin}${result.madeDefault ? ` (now the default: ${result.baseUrl})` : ''}`,
  );
  output.info(c.dim(`  Token stored in ${config.path}`));
}
