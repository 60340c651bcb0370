import { DEFAULT_BASE_URL } from '../../client/base-url.js';
import { MIN_SERVE_TOKEN_LENGTH } from '../../schema/token.js';
import { PAGE_PREFIX } from '../../server/page/page-path.js';
import { isDatabaseServer, shownDatabase } from '../../server/stores/open-store.js';
import type { DetachedServePlan } from '../actions/serve-detach.js';
import { describeTesting, loginTarget, servesTokensInClear } from '../actions/serve-setup.js';
import type { Colors } from './colors.js';
import { shellWord } from './failure-hints.js';

export interface ServeBanner {
  url: string;
  /** The token was made up: a token given is never printed. */
  generated: boolean;
  keptToken?: { file: string; fresh: boolean } | undefined;
  /** How to call plants in the suggested commands: `plants`, or `./bin/run.js` in a clone. */
  command: string;
  /** With --detach: the process to stop. */
  pid?: number | undefined;
  seedCount?: number | undefined;
}

export function renderServeBanner(plan: DetachedServePlan, banner: ServeBanner, c: Colors): string {
  const database = shownDatabase(plan.database);
  // Durability is a SQLite file's: PostgreSQL commits as its server is set up to.
  const store =
    database === ':memory:'
      ? 'in memory (gone when the server stops)'
      : isDatabaseServer(plan.database)
        ? database
        : `${database}, durability: ${plan.durability}`;
  const target = loginTarget(banner.url, plan.tls?.certPath);
  const generatedToken = banner.generated ? plan.tokens[0] : undefined;
  const lines = [`${c.green('✓')} Plant store listening on ${c.bold(banner.url)}`, `  store: ${store}`];
  for (const line of describeTesting(plan, banner.seedCount)) lines.push(`  ${line}`);
  lines.push(`  page: ${target.url}${PAGE_PREFIX} (in a browser; it asks for the token)`);
  if (servesTokensInClear(plan.host, plan.tls !== undefined)) {
    lines.push(
      c.yellow(`  warning: tokens travel in clear text on ${banner.url}; anyone on the network can read them.`),
      c.yellow('  Serve HTTPS with --tls-cert and --tls-key, or listen on 127.0.0.1.'),
    );
  }
  if (plan.tokens.some((token) => token.length < MIN_SERVE_TOKEN_LENGTH)) {
    lines.push(
      c.yellow(
        `  warning: a token shorter than ${MIN_SERVE_TOKEN_LENGTH} characters can be guessed; choose a longer one`,
      ),
      c.yellow('  (openssl rand -base64 24 makes one), or leave --token out to have one made up.'),
    );
  }
  lines.push('', banner.pid === undefined ? 'Next, in another terminal:' : 'Next:');
  // The token goes in on stdin, never as --token: that would put it in shell history and ps.
  const caCert = target.caCert === undefined ? '' : ` --ca-cert ${shellWord(target.caCert)}`;
  const login = `  ${banner.command} login --base-url ${target.url}${caCert} --with-token`;
  const kept = banner.keptToken;
  if (generatedToken !== undefined && kept !== undefined) {
    lines.push(
      `${login}   # then paste this store's token at its prompt, Enter:`,
      `  ${generatedToken}`,
      c.dim(
        kept.fresh
          ? `  (made up for this store and kept in ${kept.file}, 0600: the next start takes it again, so logins hold;`
          : `  (this store's token, kept in ${kept.file} since it was made: a login made with it still holds;`,
      ),
      c.dim('  choose your own with --token or PLANTS_TOKEN)'),
    );
  } else if (generatedToken !== undefined) {
    lines.push(
      `${login}   # then paste this run's token at its prompt, Enter:`,
      `  ${generatedToken}`,
      c.dim('  (a token made up for this run; choose your own with --token or PLANTS_TOKEN)'),
    );
  } else {
    lines.push(`${login}   # then paste the token you gave --token or PLANTS_TOKEN at its prompt, Enter`);
  }
  const stop =
    banner.pid === undefined
      ? 'Ctrl-C stops the server.'
      : `It runs in the background as process ${banner.pid}, with no log; \`kill ${banner.pid}\` stops it.`;
  // Another store is the default only when told so (login --default).
  const baseUrl = target.url === DEFAULT_BASE_URL ? '' : ` --base-url ${target.url}`;
  lines.push(`  ${banner.command} add --id 1 --name Fern --tag herb${baseUrl}`, '', c.dim(stop));
  return lines.join('\n');
}
