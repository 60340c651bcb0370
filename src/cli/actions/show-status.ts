import { AuthRejectedError, ResponseError } from '../../client/errors.js';
import { ExitCode } from '../../errors.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import { loginCommand } from '../render/failure-hints.js';
import { errorDocument, type Output } from '../render/output.js';
import { asPlantsError } from '../render/report-error.js';
import type { ActionContext } from '../runner.js';

/** `plants status`: the settings and tokens, then whether the default store takes its token (`gh auth status`). */
export async function showStatus(
  { flags }: { flags: RequestOptions & JsonOptions },
  { factory, output }: ActionContext,
): Promise<ExitCode> {
  const { describeStatus } = await import('../../config/session.js');
  const config = await factory.config();
  await config.readKeyring(config.origins());
  const status = describeStatus(config, factory.settingInputs(flags['base-url']), factory.profileSource);
  let store: { answered: boolean; token?: 'accepted' | 'not checked'; error?: unknown };
  let failure: ReturnType<typeof asPlantsError> | undefined;
  try {
    const client = await factory.plantClient(flags);
    const access = await output.withSpinner(`Checking ${status.defaultBaseUrl}`, () => client.checkAccess());
    store = { answered: true, token: access === 'accepted' ? 'accepted' : 'not checked' };
  } catch (error) {
    failure = asPlantsError(error);
    store = { answered: error instanceof ResponseError, error: JSON.parse(errorDocument(failure)) };
  }
  if (flags.json) {
    output.json([JSON.stringify({ ...status, store }, null, 2)]);
  } else {
    const { renderStatus } = await import('../render/render-status.js');
    const refused = failure !== undefined && failure instanceof AuthRejectedError && status.authenticated;
    output.data(renderStatus(status, output.color, refused ? status.defaultOrigin : undefined));
    if (store.token !== undefined) output.data(renderStoreCheck(store.token, output));
  }
  if (failure !== undefined) output.error(failure);
  // No token is exit 4 whatever the store did: a script can test for a login offline.
  if (failure !== undefined && status.authenticated) return failure.exitCode;
  if (!status.authenticated) {
    if (!flags.json && !(failure instanceof AuthRejectedError)) {
      const { value } = await factory.baseUrl(flags['base-url']);
      output.info(
        `No token for ${status.defaultOrigin}: run \`${loginCommand(value, factory.profileArgs)}\` or set PLANTS_TOKEN.`,
      );
    }
    return ExitCode.auth;
  }
  return ExitCode.ok;
}

function renderStoreCheck(token: 'accepted' | 'not checked', output: Output): string {
  const c = output.color;
  return token === 'accepted'
    ? `${c.green('✓')} The store answers${c.dim(' (GET /plants)')}`
    : `${c.yellow('!')} The store answers, but the token was not checked ${c.dim('(it does not list plants: GET /plants answered 404 or 405)')}`;
}
