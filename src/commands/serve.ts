import { readFileSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { PlantsCommand } from '../cli/base-command.js';
import { InvalidInputError } from '../errors.js';
import type { LogFormat, LogLevel } from '../server/observability/server-log.js';

export class Serve extends PlantsCommand {
  static override summary = 'Run a local plant store: the same interface, backed by SQLite.';
  static override description =
    `Listens on http://127.0.0.1:4010 by default and prints that URL as its first line on stdout, so scripts can read it. Accepts the tokens given with --token (repeatable), else PLANTS_TOKEN; with neither, it makes one up for this run and prints it with the exact plants login command to use it.

Plants are kept in plants.db in your data folder (PLANTS_DATA_DIR, or $XDG_DATA_HOME/plants), in another file with --db, only in memory with --memory, or in PostgreSQL with --database postgres://… (also PLANTS_DATABASE_URL, or DATABASE_URL; PGHOST, PGUSER, PGPASSWORD, PGDATABASE and PGSSLMODE fill in what the URL leaves out), where several serve instances can share one store. A 200 is sent only once the plant is committed: with --durability full (the default) it survives a power cut, with normal a crash of the process.

One line per request goes to stderr (method, path, status, milliseconds), unless --quiet; --log-format json makes each a JSON object for a log pipeline. Probes (/healthz, /livez, /readyz) are logged only with --log-level debug. --metrics serves Prometheus metrics at /metrics. Ctrl-C or SIGTERM stops accepting, finishes requests in flight, closes the database and exits 0.`;
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 0 --memory --token "$TOKEN" | head -1',
    '<%= config.bin %> serve --db ./plants.db --durability normal --quiet',
    '<%= config.bin %> serve --database postgres://plants@db.example:5432/plants --port 8080',
    '<%= config.bin %> serve --cors http://localhost:5173',
    '<%= config.bin %> serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> serve --log-format json --metrics --metrics-token "$SCRAPE_TOKEN"',
  ];
  static override flags = {
    port: Flags.integer({ summary: 'TCP port; 0 picks a free one.', default: 4010, min: 0, max: 65_535 }),
    host: Flags.string({ summary: 'Address to listen on.', default: '127.0.0.1' }),
    db: Flags.string({
      summary: 'SQLite database file (created if missing).',
      helpValue: 'PATH',
      exclusive: ['memory', 'database'],
    }),
    memory: Flags.boolean({
      summary: 'Keep plants in memory only; they go when the server stops.',
      default: false,
      exclusive: ['database'],
    }),
    database: Flags.string({
      summary:
        'Keep plants in PostgreSQL (postgres://USER:PASSWORD@HOST:PORT/DB) or a SQLite file (file: URL or path).',
      helpValue: 'URL',
    }),
    token: Flags.string({
      summary: 'An accepted bearer token; repeat for several.',
      helpValue: 'TOKEN',
      multiple: true,
    }),
    durability: Flags.string({
      summary: 'full: a 200 survives a power cut; normal: it survives a crash of the process, and is faster.',
      options: ['full', 'normal'],
      default: 'full',
    }),
    quiet: Flags.boolean({ char: 'q', summary: 'No request log (internal errors only).', default: false }),
    'log-format': Flags.string({
      summary: 'text: a line for people; json: one JSON object a line, for a log pipeline.',
      options: ['text', 'json'],
      default: 'text',
    }),
    'log-level': Flags.string({
      summary: 'info: a line per request; debug: probes and scrapes too; error: internal errors only.',
      options: ['error', 'info', 'debug'],
      default: 'info',
      exclusive: ['quiet'],
    }),
    metrics: Flags.boolean({
      summary: 'Serve Prometheus metrics at /metrics (no token needed from this machine).',
      default: false,
    }),
    'metrics-token': Flags.string({
      summary: 'A token that may read /metrics (and is then needed for it, from this machine too).',
      helpValue: 'TOKEN',
      dependsOn: ['metrics'],
    }),
    cors: Flags.string({
      summary: 'Let a browser app at this origin call the store (CORS); repeat for several. Off by default.',
      helpValue: 'ORIGIN',
      multiple: true,
    }),
    'tls-cert': Flags.string({
      summary: 'Serve HTTPS with this PEM certificate (chain).',
      helpValue: 'PATH',
      dependsOn: ['tls-key'],
    }),
    'tls-key': Flags.string({
      summary: 'The PEM private key of --tls-cert.',
      helpValue: 'PATH',
      dependsOn: ['tls-cert'],
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const setup = await import('../cli/actions/serve-setup.js');
    const { startPlantServer } = await import('../server/start.js');
    const { tokens, generated } = setup.serveTokens(flags.token, this.factory.env);
    const database = await setup.serveDatabase(flags, this.factory.env);
    const tls = flags['tls-cert'] === undefined ? undefined : readTls(flags['tls-cert'], flags['tls-key'] ?? '');
    const c = this.output.errorColor;
    // Listen for SIGINT/SIGTERM before anything can send one: a script may stop the server as
    // soon as it has read the URL, and that must be the graceful stop too.
    const stopped = untilStopped();
    const server = await startPlantServer({
      host: flags.host,
      port: flags.port,
      database,
      postgresEnv: this.factory.env.postgres,
      corsOrigins: flags.cors,
      tokens,
      durability: flags.durability as 'full' | 'normal',
      tls,
      logFormat: flags['log-format'] as LogFormat,
      logLevel: flags.quiet ? 'error' : (flags['log-level'] as LogLevel),
      // JSON lines go out as they are, for a machine; text is dimmed beside the banner, errors red.
      log: (line, level) =>
        this.output.info(flags['log-format'] === 'json' ? line : level === 'error' ? c.red(line) : c.dim(line)),
      metrics: flags.metrics,
      metricsToken: flags['metrics-token'],
    });
    this.output.data(server.url);
    const { renderServeBanner } = await import('../cli/render/render-serve.js');
    this.output.info(
      renderServeBanner(
        {
          url: server.url,
          database: setup.describeDatabase(database),
          durability: setup.isPostgresUrl(database) ? 'as the PostgreSQL server commits' : flags.durability,
          generatedToken: generated ? tokens[0] : undefined,
          clearTextWarning: setup.servesTokensInClear(flags.host, tls !== undefined),
          command: setup.invocationName(process.argv[1], process.cwd()),
        },
        c,
      ),
    );
    await stopped;
    this.output.info('Stopping: finishing requests in flight…');
    await server.close();
    this.output.info('Stopped.');
  }
}

function readTls(certPath: string, keyPath: string): { cert: Buffer; key: Buffer } {
  try {
    return { cert: readFileSync(certPath), key: readFileSync(keyPath) };
  } catch (error) {
    throw new InvalidInputError(`cannot read the TLS certificate or key: ${(error as Error).message}`, {
      cause: error,
    });
  }
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
