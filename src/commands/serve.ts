import { Flags } from '@oclif/core';
import { serveStore } from '../cli/actions/serve-store.js';
import { PlantsCommand } from '../cli/base-command.js';
import { readerFlag } from '../cli/flag-kinds.js';

export class Serve extends PlantsCommand {
  static override action = serveStore;
  static override summary = 'Run a local plant store: the same interface, backed by SQLite.';
  static override description =
    `Listens on http://127.0.0.1:4010 by default and prints that URL as its first line on stdout, so scripts can read it. Accepts the tokens given with --token (repeatable), else PLANTS_TOKEN; with neither, it makes one up and prints it with the exact plants login command to use it. A SQLite store keeps that token beside its file (<file>.token, mode 0600) and takes it again at the next start, so logins hold across restarts; --memory makes a new one each start.

Plants are kept in plants.db in your data folder (PLANTS_DATA_DIR, or $XDG_DATA_HOME/plants), in another file with --db, only in memory with --memory, or in PostgreSQL with --database postgres://… (also PLANTS_DATABASE_URL, or DATABASE_URL; PGHOST, PGUSER, PGPASSWORD, PGDATABASE and PGSSLMODE fill in what the URL leaves out), where several serve instances can share one store. A 200 is sent only once the plant is committed: with --durability full (the default) it survives a power cut, with normal a crash of the process.

One line per request goes to stderr (method, path, status, milliseconds), unless --quiet; --log-format json makes each a JSON object for a log pipeline. Probes (/healthz, /livez, /readyz) are logged only with --log-level debug. --metrics serves Prometheus metrics at /metrics. Ctrl-C or SIGTERM stops accepting, finishes requests in flight, closes the database and exits 0.

For a test suite: --seed FILE puts plants in the store before it listens, --allow-reset serves POST /reset (plants reset) to put them back, --delay holds each plant answer, and --fault KIND=RATE injects 503s, dropped connections (reset), stalls and truncated answers into a fraction of plant requests, reproducibly with --fault-seed.

A browser gets a page at /_serve/ (the banner prints its address; --open opens it): the plants, a live request log, requests per second and latency, and the delay and faults in force, changeable there and over PUT /_serve/controls when started with --allow-reset. It asks for the token and keeps it for the tab only.

With --detach it runs in the background instead: the command prints the URL once the server listens and exits 0 (or exits 2 with the reason when it cannot start), so URL=$(plants serve --detach …) returns. The background server keeps no log; stop it with kill and its process id (--pid-file, or the banner).`;
  static override examples = [
    '<%= config.bin %> serve',
    '$ URL=$(<%= config.bin %> serve --port 0 --memory --token "$TOKEN" --detach --pid-file plants.pid)',
    '<%= config.bin %> serve --db ./plants.db --durability normal --quiet',
    '<%= config.bin %> serve --database postgres://plants@db.example:5432/plants --port 8080',
    '<%= config.bin %> serve --cors http://localhost:5173',
    '<%= config.bin %> serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> serve --log-format json --metrics --metrics-token "$SCRAPE_TOKEN"',
    '<%= config.bin %> serve --memory --seed plants.ndjson --allow-reset --open',
    '<%= config.bin %> serve --memory --delay 50-200 --fault 503=0.1 --fault reset=0.05 --fault-seed 42',
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
      // One value per --token: a word after it is an argument (refused), not another token.
      multipleNonGreedy: true,
    }),
    durability: Flags.string({
      summary:
        'SQLite file only. full (the default): a 200 survives a power cut; normal: it survives a crash of the process, and is faster.',
      options: ['full', 'normal'],
      // No default: given with PostgreSQL it is refused.
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
      // No default: oclif's dependsOn counts a defaulted false as given (--metrics-token, --pid-file).
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
    detach: Flags.boolean({
      summary: 'Start in the background: print the URL once it listens, then exit (the server runs on).',
      // No default: oclif's dependsOn counts a defaulted false as given (--metrics-token, --pid-file).
    }),
    'pid-file': Flags.string({
      summary: "With --detach: write the server's process id to this file (stop it with kill).",
      helpValue: 'PATH',
      dependsOn: ['detach'],
    }),
    seed: Flags.string({
      summary:
        'Put these plants in the store before it serves: NDJSON or a JSON array of NewPlants, as add --file reads.',
      helpValue: 'PATH',
    }),
    'allow-reset': Flags.boolean({
      summary: 'Serve POST /reset (plants reset): puts the store back to its seed, or empty. Off by default.',
      default: false,
    }),
    delay: Flags.string({
      summary: 'Delay each answer of the plant routes by MS milliseconds, or by a uniform draw from MIN-MAX.',
      helpValue: 'MS|MIN-MAX',
    }),
    fault: Flags.string({
      summary:
        'Inject a fault into RATE (0 to 1) of plant requests; KIND is 503, reset, stall or truncate. Repeatable.',
      helpValue: 'KIND=RATE',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'fault-seed': readerFlag('faultSeed', {
      summary: 'Seed the fault draws: the same seed and the same requests meet the same faults.',
      helpValue: 'N',
    }),
    open: Flags.boolean({
      summary: "Open the store's page (plants, live request log, test-double controls) in your browser.",
      default: false,
    }),
    // Internal: the background server that --detach starts (its plan comes over IPC).
    'detached-child': Flags.boolean({ hidden: true, default: false, exclusive: ['detach'] }),
  };
}
