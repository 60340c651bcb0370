import { PAGE_PREFIX } from '../../server/page/page-path.js';
import { inSingleExecutable } from '../../single-executable.js';
import type { ActionContext } from '../runner.js';
import type { ServeFlags } from './serve-setup.js';

/** `plants serve`: runs the store until SIGINT or SIGTERM, or with --detach in the background. */
export async function serveStore(
  { flags }: { flags: ServeFlags },
  { factory, output }: ActionContext,
): Promise<number | undefined> {
  const setup = await import('./serve-setup.js');
  const detach = await import('./serve-detach.js');
  const child = flags['detached-child'];
  const { plan, generated, keptToken } = child
    ? { plan: await detach.receiveDetachedPlan(), generated: false, keptToken: undefined }
    : await setup.servePlan(flags, factory.env);
  const c = output.errorColor;
  if (keptToken?.warning !== undefined) output.info(c.yellow(`warning: ${keptToken.warning}`));
  const { renderServeBanner } = await import('../render/render-serve.js');
  // The seed is read before anything is opened or listened on: a bad record is exit 2, no file made.
  const { readSeedFile } = await import('../../server/test-double/seed.js');
  const seed = plan.seedFile === undefined || flags.detach ? undefined : await readSeedFile(plan.seedFile);
  const command = setup.invocationName(process.argv[1], process.cwd());
  const banner = (url: string, pid?: number) =>
    renderServeBanner(plan, { url, pid, generated, keptToken, command, seedCount: seed?.plants.length }, c);
  if (flags.detach) {
    const started = await detach.startDetachedServer({
      plan,
      script: inSingleExecutable() ? undefined : (process.argv[1] ?? ''),
      stderr: factory.io.stderr,
      pidFile: flags['pid-file'],
    });
    if ('exitCode' in started) return started.exitCode;
    output.data(started.url);
    output.info(banner(started.url, started.pid));
    if (flags.open) await openPage(started.url, (why) => output.info(c.yellow(`  note: ${why}`)));
    return undefined;
  }
  const tls = plan.tls === undefined ? undefined : setup.readTlsFiles(plan.tls.certPath, plan.tls.keyPath);
  // Before anything can send one: a script may stop the server as soon as it has read the URL.
  const stopped = untilStopped();
  const { startPlantServer } = await import('../../server/start.js');
  const server = await startPlantServer({
    ...plan,
    postgresEnv: factory.env.postgres,
    tls,
    logLevel: flags.quiet ? 'error' : plan.logLevel,
    // The background server of --detach keeps no log: nobody reads its stderr.
    log: child
      ? undefined
      : (line, level) => output.info(plan.logFormat === 'json' ? line : level === 'error' ? c.red(line) : c.dim(line)),
    seed,
  });
  if (plan.tokenFile !== undefined) {
    const { keepToken } = await import('./serve-token.js');
    const failed = keepToken(plan.tokenFile, plan.tokens[0] ?? '');
    if (failed !== undefined) output.info(c.yellow(`warning: ${failed}`));
  }
  if (child) {
    detach.reportDetachedReady(server.url, factory.io.stderr);
  } else {
    output.data(server.url);
    output.info(banner(server.url));
    if (flags.open) await openPage(server.url, (why) => output.info(c.yellow(`  note: ${why}`)));
  }
  await stopped;
  output.info('Stopping: finishing requests in flight…');
  await server.close();
  output.info('Stopped.');
  return undefined;
}

async function openPage(url: string, onFailure: (why: string) => void): Promise<void> {
  const { openInBrowser } = await import('./open-browser.js');
  openInBrowser(`${url}${PAGE_PREFIX}`, onFailure);
}

/** Resolves on the first SIGINT or SIGTERM; a second one ends the process at once. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', () => {
      process.removeListener('SIGINT', stop);
      stop();
    });
  });
}
