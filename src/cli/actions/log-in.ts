import { ExitCode, InvalidInputError, PlantsError } from '../../errors.js';
import type { RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';

export interface LoginFlags extends RequestOptions {
  token?: string | undefined;
  'with-token': boolean;
  default: boolean;
  'insecure-storage': boolean;
  offline: boolean;
}

type Check = { checked: true; how: string } | { checked: false; why: string };

/** `plants login` (its description tells the rules): the token tried on the store first, as `gh auth login` does. */
export async function logIn({ flags }: { flags: LoginFlags }, context: ActionContext): Promise<void> {
  const { factory, output } = context;
  const config = await factory.config({ create: true });
  const baseUrl = await factory.baseUrl(flags['base-url']);
  // --default alone, for a store logged in to already: a switch (gh auth switch), the token it has.
  const alone = flags.default && flags.token === undefined && !flags['with-token'];
  if (alone) await config.readKeyring([baseUrl.value.origin]);
  const stored = config.tokenFor(baseUrl.value.origin);
  const switching = alone && stored !== undefined;
  const { obtainToken } = await import('../input/prompt.js');
  const token = switching
    ? stored
    : await obtainToken({ token: flags.token, withToken: flags['with-token'] }, factory.io);
  const { login } = await import('../../config/session.js');
  const { isBearerToken, describeBadToken } = await import('../../schema/token.js');
  if (!isBearerToken(token)) throw new InvalidInputError(`token refused: ${describeBadToken(token)}`);
  const { assertTokenTransportSafe } = await import('../../client/base-url.js');
  assertTokenTransportSafe(baseUrl.value, { insecure: flags.insecure });

  // Local faults first: a config that cannot take the token is said before the store is asked.
  config.ensureWritable();
  const check: Check = flags.offline
    ? { checked: false, why: '--offline' }
    : await checkToken(token, flags, context, switching ? 'the default store is unchanged' : 'the token was not saved');
  const result = await login(config, {
    token,
    baseUrl: baseUrl.value,
    fromFlag: baseUrl.source === 'flag',
    makeDefault: flags.default,
    insecureStorage: flags['insecure-storage'],
  });
  const caCert = flags['ca-cert'] === undefined ? undefined : (await import('node:path')).resolve(flags['ca-cert']);
  if (caCert !== undefined) await config.setCaCert(result.origin, caCert);
  const c = output.errorColor;
  const profile = config.profile === 'default' ? '' : ` (profile ${config.profile})`;
  output.info(`${c.green('✓')} Logged in to ${result.origin}${profile}`);
  output.info(
    check.checked
      ? c.dim(`  Token checked: ${check.how}.`)
      : c.yellow(`  Token not checked: ${check.why}; it is stored all the same.`),
  );
  output.info(
    result.storedIn === 'keyring'
      ? c.dim('  Token stored in the OS keyring')
      : c.yellow(`  Token stored in ${result.storedIn} (mode 0600): ${result.why}`),
  );
  if (caCert !== undefined) output.info(c.dim(`  Its TLS certificate is trusted from ${caCert} (--ca-cert)`));
  const { defaultBaseUrl: current, baseUrl: url } = result;
  output.info(
    result.madeDefault
      ? `  Now the default store: ${current}`
      : current === url
        ? `  The default store: ${current} (this one)`
        : baseUrl.source === 'environment'
          ? `  PLANTS_BASE_URL chose this store; without it, the default store is ${current}.`
          : `  The default store is still ${current}: give --base-url ${url} to use this one, or \`plants login --base-url ${url} --default\` to make it the default.`,
  );
}

async function checkToken(
  token: string,
  flags: LoginFlags,
  { factory, output }: ActionContext,
  unchanged: string,
): Promise<Check> {
  const { AuthRejectedError, ResponseError, UnreachableError } = await import('../../client/errors.js');
  const client = await factory.plantClient(flags, {
    token,
    // No back-off: a store that does not answer is said at once.
    attempts: 1,
  });
  const { formatBaseUrl } = await import('../../client/base-url.js');
  const base = await factory.baseUrl(flags['base-url']);
  try {
    const access = await output.withSpinner(`Checking the token with ${base.value.origin}`, () => client.checkAccess());
    return access === 'accepted'
      ? { checked: true, how: 'the store took the token (GET /plants)' }
      : { checked: false, why: 'the store does not list plants (GET /plants: 404 or 405), so it could not be tried' };
  } catch (error) {
    if (error instanceof AuthRejectedError) {
      throw new PlantsError(
        `the store at ${formatBaseUrl(base.value)} refused this token (${error.status}: ${error.body.message}); it was not saved`,
        { exitCode: ExitCode.auth, hints: ['Check the token; the one stored before (if any) is unchanged.'] },
      );
    }
    // A URL that cannot work is not stored (nor made the default): the failure any command gets.
    if (error instanceof UnreachableError) {
      const { failureHints } = await import('../render/failure-hints.js');
      throw new PlantsError(`${error.message}; ${unchanged}`, {
        exitCode: error.exitCode,
        cause: error,
        hints: [...failureHints(error), 'To store it all the same, for a store that is down, add --offline.'],
      });
    }
    if (error instanceof ResponseError) return { checked: false, why: error.message };
    throw error;
  }
}
