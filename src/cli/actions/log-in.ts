import type { Login } from '../../commands/login.js';
import { ExitCode, PlantsError } from '../../errors.js';
import { clientRequest } from '../factory.js';
import type { ActionContext, Parsed } from '../runner.js';

type LoginFlags = Parsed<typeof Login>['flags'];

/** What the store said of a new token. */
type Check = { checked: true; how: string } | { checked: false; why: string };

/**
 * `plants login`: stores the token for the origin of the base URL (made the default with
 * --base-url). As `gh auth login` does, the token is first tried on the store (one plant's page,
 * GET /plants?limit=1): a token the store refuses (401/403) is not stored, exit 4; a store that
 * cannot be reached or does not list plants leaves it unchecked, and it is stored with a note.
 * A plain-http URL of another machine is refused here (exit 2), as every later command would.
 */
export async function logIn({ flags }: Parsed<typeof Login>, context: ActionContext): Promise<void> {
  const { factory, output } = context;
  const { obtainToken } = await import('../input/obtain-token.js');
  const token = await obtainToken({ token: flags.token, withToken: flags['with-token'] }, factory.io);
  const { login } = await import('../../config/session.js');
  const { isBearerToken, describeBadToken } = await import('../../schema/token.js');
  const { InvalidInputError } = await import('../../errors.js');
  if (!isBearerToken(token)) throw new InvalidInputError(`token refused: ${describeBadToken(token)}`);
  const config = await factory.config();
  const baseUrl = await factory.baseUrl(flags['base-url']);
  const { assertTokenTransportSafe } = await import('../../client/base-url.js');
  assertTokenTransportSafe(baseUrl.value, { insecure: flags.insecure });

  // Local faults first: a config that cannot take the token is said before the store is asked.
  config.ensureWritable();
  const check = await checkToken(token, flags, context);
  const result = await login(config, {
    token,
    baseUrl: baseUrl.value,
    explicitBaseUrl: flags['base-url'] !== undefined,
  });
  const caCert = flags['ca-cert'] === undefined ? undefined : (await import('node:path')).resolve(flags['ca-cert']);
  if (caCert !== undefined) await config.setCaCert(result.origin, caCert);
  const c = output.errorColor;
  output.info(
    `${c.green('✓')} Logged in to ${result.origin}${result.madeDefault ? ` (now the default: ${result.baseUrl})` : ''}`,
  );
  output.info(
    check.checked
      ? c.dim(`  Token checked: ${check.how}.`)
      : c.yellow(`  Token not checked: ${check.why}; it is stored all the same.`),
  );
  output.info(c.dim(`  Token stored in ${config.path}`));
  if (caCert !== undefined) output.info(c.dim(`  Its TLS certificate is trusted from ${caCert} (--ca-cert)`));
}

async function checkToken(token: string, flags: LoginFlags, { factory, output }: ActionContext): Promise<Check> {
  const { AuthRejectedError, ResponseError, UnreachableError } = await import('../../client/errors.js');
  const client = await factory.plantClient({
    ...clientRequest(flags),
    token,
    // Offline login is expected: one try, no back-off.
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
    if (error instanceof UnreachableError || error instanceof ResponseError)
      return { checked: false, why: error.message };
    throw error;
  }
}
