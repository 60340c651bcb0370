import { ExitCode } from '../../errors.js';
import type { Factory } from '../factory.js';
import type { Output } from '../render/output.js';

/** `plants status`: the default store and the stored tokens; exit 4 when the default origin has none. */
export async function showStatus(
  options: { flagBaseUrl: string | undefined; json: boolean },
  factory: Factory,
  output: Output,
) {
  const { describeStatus } = await import('../../config/session.js');
  const status = describeStatus(await factory.config(), factory.settingInputs(options.flagBaseUrl));
  if (options.json) {
    output.data(JSON.stringify(status, null, 2));
  } else {
    const { renderStatus } = await import('../render/render-status.js');
    output.data(renderStatus(status, output.color));
  }
  if (!status.authenticated) {
    if (!options.json) output.info(`No token for ${status.defaultOrigin}: run \`plants login\` or set PLANTS_TOKEN.`);
    process.exitCode = ExitCode.auth;
  }
}
