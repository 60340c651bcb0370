import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFaults } from '../../src/server/test-double/testing-options.js';
import { binPath, makeTempDir, projectRoot, runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { postgresBin, postgresShellPrelude, postgresTestsEnabled } from '../helpers/postgres.js';
import { isRunning, stopDetachedServer } from '../helpers/serve-process.js';
import { completeInBash, shellTestsRun } from '../helpers/shells.js';
import { readStoredPlants, type StoreServer, startStoreServer, TEST_TOKEN } from '../helpers/store-server.js';
import { runCliInTty } from '../helpers/tty.js';

/**
 * Every shell example of the manual (README.md and every page of docs/ but the generated
 * commands.md), run as a user would run it: a line of bash (or fish) with `plants` on the PATH as
 * the built CLI, in a folder holding the files the examples name, against a real store. The first
 * test fails when a page gains an example this table does not run, or the pages lose one it does,
 * so a promise in the manual cannot drift from what plants does. An example shown on two pages
 * runs once. The second test holds the pages' relative links to files and headings that exist.
 */

interface Shell {
  dir: string;
  env: Record<string, string>;
  store: StoreServer;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Example {
  /**
   * How it runs: to its end (the default); as a server, until its URL line, then SIGTERM, which
   * must end it with 0; or at a terminal, typing the token at the prompt.
   */
  as?: 'serve' | 'terminal';
  /** A change to the line, and why: only where the line names something this machine lacks. */
  rewrite?: (line: string, shell: Shell) => string;
  /** Run first, in the same shell. */
  before?: string;
  /** Run before `plants login` (every other example runs after it, as the manual has it). */
  loggedOut?: boolean;
  /** In the project folder (`./bin/…`) instead of the folder of example files. */
  inProject?: boolean;
  /** Expected exit code (default 0). */
  code?: number;
  check?: (run: Run, shell: Shell) => void | Promise<void>;
  /** Why this test does not run it, and what does. */
  notRunHere?: string;
  /** A step of a walk-through: run with the others of it, in page order, in one shell (below). */
  walkthrough?: 'postgres-sharing';
  /** Run against a store of its own started with these faults (serve --fault, --fault-seed), not the default one. */
  faultyStore?: { faults: string[]; faultSeed: number };
}

// A free port instead of 4010, which the `npm start` the README has people run may hold.
const serveOnFreePort = (line: string) => line.replace('plants serve', 'plants serve --port 0');

// The page's controls are changeable on a store started with --allow-reset: one of this test's,
// in the background, instead of one on 4010.
const controlledStore = (flags = '') =>
  `plants serve --port 0 --memory --allow-reset --token "$TOKEN"${flags} --detach --pid-file plants.pid > url.txt 2>/dev/null`;
const onControlledStore = (line: string) => line.replace('http://127.0.0.1:4010', '"$(cat url.txt)"');

const CA_CERT_WALKTHROUGH =
  'needs stores with certificates of their own at those names; test/commands/ca-cert.e2e.test.ts runs the same three steps (login --ca-cert kept for the origin, list trusted from then on, --ca-cert for one command) against plants serve --tls-cert';

const examples: Record<string, Example> = {
  'npm ci && npm start': { notRunHere: 'CI runs npm ci; npm start is `plants serve`, run below' },
  'npm ci && npm test': { notRunHere: 'CI runs it: this test is part of it' },
  './bin/run.js login --with-token <<< "<the token it printed>"': {
    loggedOut: true,
    inProject: true,
    rewrite: (line) => line.replace('<the token it printed>', TEST_TOKEN),
    check: (run) => expect(run.stderr).toContain('Logged in to'),
  },
  './bin/run.js add --id 1 --name Fern --tag herb': {
    inProject: true,
    check: (_run, shell) =>
      expect(readStoredPlants(shell.store.dbPath)).toEqual([{ id: 1n, name: 'Fern', tag: 'herb' }]),
  },
  'printf %s "$TOKEN" | plants login --with-token': { loggedOut: true, check: loggedIn },
  'plants login --token "$TOKEN"': { loggedOut: true, check: loggedIn },
  'plants login': { loggedOut: true, as: 'terminal', check: loggedIn },
  'plants login --base-url https://plants.example.com --with-token < token.txt': {
    loggedOut: true,
    // plants.example.com stands for a remote store this machine cannot reach: stored untried.
    rewrite: (line) => `${line} --offline`,
    check: (_run, shell) => expect(storedTokens(shell)['https://plants.example.com']).toBe('token-from-a-file'),
  },
  'plants login --base-url https://plants.example.com --default': {
    before: 'plants login --base-url https://plants.example.com --token other --offline 2>/dev/null',
    // The same stand-in: the stored token is not tried again here.
    rewrite: (line) => `${line} --offline`,
    check: (run, shell) => {
      expect(run.stderr).toContain('Now the default store: https://plants.example.com');
      expect(readFileSync(path.join(shell.env.PLANTS_CONFIG_DIR ?? '', 'config.json'), 'utf8')).toContain(
        '"defaultBaseUrl": "https://plants.example.com"',
      );
    },
  },
  'plants logout': {
    check: (_run, shell) => expect(storedTokens(shell)[shell.store.url]).toBeUndefined(),
  },
  'plants logout --base-url https://plants.example.com': {
    before: 'plants login --base-url https://plants.example.com --token other --offline 2>/dev/null',
    check: (run, shell) => {
      expect(run.stderr).toContain('Logged out of https://plants.example.com');
      expect(storedTokens(shell)['https://plants.example.com']).toBeUndefined();
    },
  },
  'plants status': {
    check: (run, shell) => expect(run.stdout).toContain(shell.store.url),
  },
  // docs/config.md
  'plants login --profile work --base-url https://plants.example.com --with-token < token.txt': {
    loggedOut: true,
    rewrite: (line) => `${line} --offline`,
    check: (run, shell) => {
      expect(run.stderr).toContain('Logged in to https://plants.example.com (profile work)');
      const file = path.join(shell.env.PLANTS_CONFIG_DIR ?? '', 'profiles', 'work.json');
      expect(JSON.parse(readFileSync(file, 'utf8')).tokens).toEqual({
        'https://plants.example.com': 'token-from-a-file',
      });
    },
  },
  'PLANTS_PROFILE=work plants status': {
    before: 'plants login --profile work --with-token <<< "$TOKEN" 2>/dev/null',
    check: (run) => expect(run.stdout).toContain('Profile:       work (from PLANTS_PROFILE)'),
  },
  'plants logout --profile work': {
    before: 'plants login --profile work --with-token <<< "$TOKEN" 2>/dev/null',
    check: (run, shell) => expect(run.stderr).toBe(`✓ Logged out of ${shell.store.url} (profile work)\n`),
  },
  'plants status --json': {
    check: (run, shell) => expect(JSON.parse(run.stdout)).toMatchObject({ defaultBaseUrl: shell.store.url }),
  },
  'plants add --id 1 --name Fern --tag herb': { check: stored([{ id: 1n, name: 'Fern', tag: 'herb' }]) },
  'plants add --id 9223372036854775807 --name Oak --json': {
    check: (run) => expect(run.stdout).toBe('{"id":9223372036854775807,"name":"Oak"}\n'),
  },
  'plants add --file plant.json --tag shade': { check: stored([{ id: 3n, name: 'Moss', tag: 'shade' }]) },
  'echo \'{"id": 2, "name": "Ivy"}\' | plants add --file -': { check: stored([{ id: 2n, name: 'Ivy', tag: null }]) },
  'plants add --file plants.ndjson > results.ndjson': {
    check: (_run, shell) => {
      const results = readFileSync(path.join(shell.dir, 'results.ndjson'), 'utf8').trim().split('\n');
      expect(results.map((line) => JSON.parse(line).status)).toEqual([200, 200]);
      stored([
        { id: 10n, name: 'Fern', tag: null },
        { id: 11n, name: 'Ivy', tag: null },
      ])(_run, shell);
    },
  },
  'plants add --file plants.ndjson --skip-existing': {
    // After an import of the same file: it finds every plant stored as sent.
    before: 'plants add --file plants.ndjson > /dev/null',
    check: (run, shell) => {
      expect(
        run.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).outcome),
      ).toEqual(['existing', 'existing']);
      stored([
        { id: 10n, name: 'Fern', tag: null },
        { id: 11n, name: 'Ivy', tag: null },
      ])(run, shell);
    },
  },
  "jq -c '.[]' export.json | plants add --file - --concurrency 32 --fail-fast": {
    check: stored([
      { id: 20n, name: 'Oak', tag: null },
      { id: 21n, name: 'Elm', tag: 'tree' },
    ]),
  },
  'plants login --base-url https://plants.internal:4010 --ca-cert cert.pem --with-token < token.txt': {
    notRunHere: CA_CERT_WALKTHROUGH,
  },
  'plants list --json --base-url https://plants.internal:4010': { notRunHere: CA_CERT_WALKTHROUGH },
  'plants get 1 --base-url https://other.internal:4010 --ca-cert other.pem': { notRunHere: CA_CERT_WALKTHROUGH },
  'plants serve': { as: 'serve', rewrite: serveOnFreePort, check: servedFrom(/store: .*plants\.db, durability: full/) },
  'URL=$(plants serve --port 0 --memory --token "$TOKEN" --detach --pid-file plants.pid)': {
    rewrite: (line) => `${line} && echo "$URL"`,
    check: async (run, shell) => {
      expect(run.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
      await stopDetached(shell);
    },
  },
  'kill "$(cat plants.pid)"': {
    before: 'plants serve --port 0 --memory --detach --pid-file plants.pid >/dev/null 2>&1',
    check: async (_run, shell) => {
      const pid = Number(readFileSync(path.join(shell.dir, 'plants.pid'), 'utf8'));
      while (isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
    },
  },
  'plants serve --db ./plants.db --durability normal --quiet': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/store: \.\/plants\.db, durability: normal/),
  },
  'plants serve --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: (run) => expect(run.stdout).toMatch(/^https:\/\/0\.0\.0\.0:\d+\n$/),
  },
  'plants serve --log-format json --metrics --metrics-token "$SCRAPE_TOKEN"': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: (run) => {
      expect(run.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
      expect(run.stderr).toContain('Stopped.');
    },
  },
  'curl -s http://127.0.0.1:4010/metrics': {
    // A metrics-serving store of this test, instead of one on 4010.
    before: 'plants serve --port 0 --memory --metrics --detach --pid-file plants.pid > url.txt 2>/dev/null',
    rewrite: (line) => line.replace('http://127.0.0.1:4010', '"$(cat url.txt)"'),
    check: async (run, shell) => {
      await stopDetached(shell);
      expect(run.stdout).toMatch(/^plants_/m);
    },
  },
  'curl -s -H "Authorization: Bearer $SCRAPE_TOKEN" https://plants.example.com/metrics': {
    // plants.example.com stands for a remote store: here, one of this test's, over https.
    before:
      'plants serve --port 0 --memory --metrics --metrics-token "$SCRAPE_TOKEN" --tls-cert cert.pem --tls-key key.pem --detach --pid-file plants.pid > url.txt 2>/dev/null',
    rewrite: (line) => line.replace('https://plants.example.com', '--cacert cert.pem "$(cat url.txt)"'),
    check: async (run, shell) => {
      await stopDetached(shell);
      expect(run.stdout).toMatch(/^plants_/m);
    },
  },
  'plants serve --memory --seed plants.ndjson --allow-reset': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/ {2}seed: plants\.ndjson \(2 plants\)\n {2}reset: allowed/),
  },
  'plants reset --yes': {
    // The examples' store is started with allowReset and no seed: a reset empties it.
    before: 'plants add --id 5 --name Fern >/dev/null 2>&1',
    check: (run, shell) => {
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe('✓ Reset: the store holds no plants now\n');
      stored([])(run, shell);
    },
  },
  'curl -s -X POST -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4010/reset': {
    before: 'plants add --id 5 --name Fern >/dev/null 2>&1',
    rewrite: (line) => line.replace('http://127.0.0.1:4010', '"$PLANTS_BASE_URL"'),
    check: (run, shell) => {
      expect(run.stdout).toBe('[]');
      stored([])(run, shell);
    },
  },
  'plants serve --memory --delay 200': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/delay: 200 ms before each answer of the plant routes/),
  },
  'plants serve --memory --delay 50-500': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/delay: 50-500 ms before each answer of the plant routes/),
  },
  'plants serve --memory --fault 503=0.3 --fault-seed 42': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/faults: 503 30% of plant requests \(--fault-seed 42 gives the same faults again\)/),
  },
  'plants serve --memory --fault reset=0.1 --fault stall=0.01 --fault truncate=0.05': {
    as: 'serve',
    rewrite: serveOnFreePort,
    check: servedFrom(/faults: reset 10%, stall 1%, truncate 5% of plant requests \(--fault-seed \d+ gives/),
  },
  // Against the store of the line before it, plants serve --fault 503=0.3 --fault-seed 42.
  'plants add --file plants.ndjson --retries 10': {
    faultyStore: { faults: ['503=0.3'], faultSeed: 42 },
    // 400 records, so that a record whose every try meets a 503 would be seen (3 expected with
    // the default retries), yet done within the 20 s an example may take.
    before: 'for id in $(seq 1 400); do echo "{\\"id\\": $id, \\"name\\": \\"p$id\\"}"; done > plants.ndjson',
    check: (run, shell) => {
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(400);
      expect(lines.filter((line) => !line.includes('"outcome":"added"'))).toEqual([]);
      expect(readStoredPlants(shell.store.dbPath)).toHaveLength(400);
    },
  },
  'plants list': {
    before: 'plants add --id 5 --name Fern >/dev/null 2>&1',
    check: (run) => expect(run.stdout).toBe('{"id":5,"name":"Fern"}\n'),
  },
  'plants list --limit 10 --after 42': {
    before: 'for id in 41 42 43; do plants add --id $id --name p$id >/dev/null 2>&1; done',
    check: (run) => expect(run.stdout).toBe('{"id":43,"name":"p43"}\n'),
  },
  'plants list --all --json > plants.ndjson': {
    before: 'plants add --id 9223372036854775807 --name Oak >/dev/null 2>&1',
    check: (_run, shell) =>
      expect(readFileSync(path.join(shell.dir, 'plants.ndjson'), 'utf8')).toBe(
        '{"id":9223372036854775807,"name":"Oak"}\n',
      ),
  },
  'plants get 9223372036854775807 --json': {
    before: 'plants add --id 9223372036854775807 --name Oak >/dev/null 2>&1',
    check: (run) => expect(run.stdout).toBe('{"id":9223372036854775807,"name":"Oak"}\n'),
  },
  'plants add --file plants.ndjson --dry-run': {
    check: (run, shell) => {
      expect(
        run.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).outcome),
      ).toEqual(['valid', 'valid']);
      expect(run.stderr).toBe('2 records: 2 valid, 0 invalid\n');
      stored([])(run, shell);
    },
  },
  'plants list --all --jq \'select(.tag == "herb") | .id\'': {
    before: [
      'plants add --id 9223372036854775807 --name Oak --tag herb',
      'plants add --id 5 --name Ivy',
      'plants add --id -9223372036854775807 --name Moss --tag herb',
    ].join(' >/dev/null 2>&1 && '),
    check: (run) => expect(run.stdout).toBe('-9223372036854775807\n9223372036854775807\n'),
  },
  'plants get 9223372036854775807 --jq .id': {
    before: 'plants add --id 9223372036854775807 --name Oak >/dev/null 2>&1',
    check: (run) => expect(run.stdout).toBe('9223372036854775807\n'),
  },
  'plants add --file plants.ndjson --jq \'select(.outcome != "added") | .line\'': {
    // Plant 10, the file's first record, is there already: that line is rejected.
    before: 'plants add --id 10 --name Fern >/dev/null 2>&1',
    code: 1,
    check: (run) => expect(run.stdout).toBe('1\n'),
  },
  'plants status --jq .store.token': { check: (run) => expect(run.stdout).toBe('accepted\n') },
  'plants delete 7': {
    before: 'plants add --id 7 --name Fern >/dev/null 2>&1',
    check: stored([]),
  },
  'plants serve --port 4011 --db copy.db': {
    as: 'serve',
    rewrite: (line) => line.replace('--port 4011', '--port 0'),
    check: servedFrom(
      /store: copy\.db, durability: full[\s\S]*plants login --base-url http:\/\/127\.0\.0\.1:\d+ --with-token/,
    ),
  },
  'plants list --all --json | plants add --file - --base-url http://127.0.0.1:4011': {
    // The README's second store is on 4011; here it is one on a free port.
    rewrite: (line, shell) => line.replace('http://127.0.0.1:4011', shell.env.SECOND_STORE ?? ''),
    before: [
      'plants login --base-url "$SECOND_STORE" --token "$TOKEN" 2>/dev/null',
      'plants add --id 1 --name Fern >/dev/null 2>&1',
      'plants add --id 2 --name Ivy >/dev/null 2>&1',
    ].join(' && '),
    check: (_run, shell) =>
      expect(readStoredPlants(shell.env.SECOND_STORE_DB ?? '')).toEqual([
        { id: 1n, name: 'Fern', tag: null },
        { id: 2n, name: 'Ivy', tag: null },
      ]),
  },
  'plants autocomplete': { check: (run) => expect(run.stdout).toContain('plants autocomplete script bash') },
  'plants autocomplete zsh': { check: (run) => expect(run.stdout).toContain('plants autocomplete script zsh') },
  'mkdir -p "${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions" && plants autocomplete script bash > "${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/plants"':
    {
      check: (_run, shell) => {
        const script = path.join(shell.dir, '.local/share/bash-completion/completions/plants');
        expect(completeInBash(script, 'plants serve --durability ')).toEqual(['full', 'normal']);
      },
    },
  'mkdir -p $__fish_config_dir/completions; and plants autocomplete script fish > $__fish_config_dir/completions/plants.fish':
    {
      check: (_run, shell) =>
        expect(existsSync(path.join(shell.dir, '.config/fish/completions/plants.fish'))).toBe(true),
    },
  'npm run bench': { notRunHere: 'a benchmark of minutes; tests time nothing' },
  'BENCH_QUICK=1 npm run bench': { notRunHere: 'a benchmark; tests time nothing' },
  'BENCH_ROWS=c npm run bench': { notRunHere: 'a benchmark; tests time nothing' },
  'BENCH_PIN=0 npm run bench': { notRunHere: 'a benchmark; tests time nothing' },
  'npm ci': { notRunHere: 'CI runs it' },
  'npm test': { notRunHere: 'CI runs it: this test is part of it' },
  'npm run test:e2e': { notRunHere: 'CI runs it: this test is part of it' },
  './bin/dev.js add --help': {
    inProject: true,
    check: (run) => {
      expect(run.stdout).toContain('--file');
      // From the sources, the help class too: no warning that oclif fell back to dist/.
      expect(run.stderr).toBe('');
    },
  },
  'CI=true bash .ci/run': { notRunHere: 'it is CI: this test is one of those it runs' },
  '.ci/node-matrix': {
    notRunHere:
      'CI runs it (.ci/run): it downloads Node releases and runs the fast tier and the node-e2e files on each',
  },
  '.ci/node-matrix 24 26.10.0': { notRunHere: 'CI runs .ci/node-matrix: it downloads Node releases' },
  'npm ci && npm run build && npm run build:binary': {
    notRunHere:
      'CI runs it (.ci/run) before the tests; test/binary/binary.e2e.test.ts runs what it makes, alone on PATH',
  },
  'cd binary && sha256sum -c plants-linux-x64.sha256': {
    notRunHere: 'needs the binary; test/binary/binary.e2e.test.ts checks the checksum file against it',
  },
  'install -m 755 plants-linux-x64 ~/.local/bin/plants': {
    notRunHere:
      'installs outside the test folder; test/binary/binary.e2e.test.ts runs the binary as plants, alone on PATH',
  },
  '~/.local/bin/plants --version': { notRunHere: 'test/binary/binary.e2e.test.ts runs the binary --version' },
  'npm pack': {
    notRunHere: 'test/package/installed-package.node-e2e.test.ts packs the project and installs the tarball',
  },
  'npm install -g plants-0.1.0.tgz': { notRunHere: 'installs globally, outside the test folder' },
  'npx --package ./plants-0.1.0.tgz plants --version': { notRunHere: 'needs the tarball of npm pack' },
  'createdb -h 127.0.0.1 -p 5433 -U plants plants': { walkthrough: 'postgres-sharing' },
  'export PATH=/usr/lib/postgresql/15/bin:$PATH': { walkthrough: 'postgres-sharing' },
  'export PLANTS_TOKEN=team-token-12345': { walkthrough: 'postgres-sharing' },
  'initdb -D ./pgdata -U plants --auth=trust': { walkthrough: 'postgres-sharing' },
  'pg_ctl -D ./pgdata -l ./pgdata/log -o "-p 5433 -k /tmp" start': { walkthrough: 'postgres-sharing' },
  'plants add --file plants.ndjson --base-url http://127.0.0.1:4011': { walkthrough: 'postgres-sharing' },
  'plants list --all --json --base-url http://127.0.0.1:4012': { walkthrough: 'postgres-sharing' },
  'plants serve --port 4011 --database postgres://plants@127.0.0.1:5433/plants &': { walkthrough: 'postgres-sharing' },
  'plants serve --port 4012 --database postgres://plants@127.0.0.1:5433/plants &': { walkthrough: 'postgres-sharing' },
  'printf \'{"id":1,"name":"Fern","tag":"herb"}\\n{"id":9007199254740993,"name":"Moss"}\\n\' > plants.ndjson': {
    walkthrough: 'postgres-sharing',
  },
  'npm run manifest': { notRunHere: 'test/manifest.test.ts checks that the committed manifest is what it makes' },
  // docs/postgres.md
  "plants serve --database 'postgres://plants:PASSWORD@db1:5432,db2:5432/plants?target_session_attrs=read-write'": {
    notRunHere:
      'needs a primary and a standby at db1 and db2; test/reliability/postgres-failover.e2e.test.ts runs serve given both hosts of a pair on loopback',
  },
  "plants serve --database 'postgres://plants:PASSWORD@haproxy:5000/plants?target_session_attrs=read-write'": {
    notRunHere: 'needs Patroni and HAProxy, which are not run here (docs/postgres.md says so)',
  },
  'pg_autoctl show uri --formation default': {
    notRunHere: 'needs pg_auto_failover, which is not run here (docs/postgres.md says so)',
  },
  'plants serve --database "$(pg_autoctl show uri --formation default)"': {
    notRunHere: 'needs pg_auto_failover, which is not run here (docs/postgres.md says so)',
  },
  // docs/serve-page.md
  'plants serve --memory --seed plants.ndjson --allow-reset --open': {
    notRunHere:
      'would open a browser on this machine; test/commands/serve-page.e2e.test.ts runs --open with an opener of its own and without one',
  },
  'curl -s -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4010/_serve/controls': {
    before: controlledStore(),
    rewrite: onControlledStore,
    check: async (run, shell) => {
      await stopDetached(shell);
      expect(JSON.parse(run.stdout)).toMatchObject({ editable: true, reset: true, delay: null, faults: [] });
    },
  },
  'curl -s -X PUT -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' -d \'{"faults":[{"kind":"503","rate":1}],"faultSeed":42}\' http://127.0.0.1:4010/_serve/controls':
    {
      before: controlledStore(),
      rewrite: onControlledStore,
      check: async (run, shell) => {
        await stopDetached(shell);
        expect(JSON.parse(run.stdout)).toMatchObject({ faults: [{ kind: '503', rate: 1 }], faultSeed: 42 });
      },
    },
  'curl -s -X PUT -H "Authorization: Bearer $TOKEN" -H \'content-type: application/json\' -d \'{"faults":[],"delay":null}\' http://127.0.0.1:4010/_serve/controls':
    {
      before: controlledStore(' --fault 503=0.5'),
      rewrite: onControlledStore,
      check: async (run, shell) => {
        await stopDetached(shell);
        expect(JSON.parse(run.stdout)).toMatchObject({ delay: null, faults: [] });
      },
    },
};

/** The pages whose shell examples run here: README.md and docs/*.md but the generated commands.md. */
const pages = [
  'README.md',
  ...readdirSync(path.join(projectRoot, 'docs'))
    .filter((file) => file.endsWith('.md') && file !== 'commands.md')
    .sort()
    .map((file) => `docs/${file}`),
];

interface Found {
  page: string;
  language: string;
  line: string;
}

/**
 * The shell examples of a page: each line of its sh and fish blocks but comments, a line ending
 * in `\` joined with the next, without its trailing comment.
 */
function pageExamples(page: string, text: string): Found[] {
  const found: Found[] = [];
  for (const block of text.matchAll(/^```(sh|fish)\n([\s\S]*?)^```/gm)) {
    const body = (block[2] ?? '').replace(/\s*\\\n\s*/g, ' ');
    for (const raw of body.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      found.push({ page, language: block[1] ?? 'sh', line: line.replace(/\s+#\s.*$/, '') });
    }
  }
  return found;
}

const texts = new Map(pages.map((page) => [page, readFileSync(path.join(projectRoot, page), 'utf8')]));
const found = pages.flatMap((page) => pageExamples(page, texts.get(page) ?? ''));
/** Each example once, with the pages that show it. */
const unique = new Map<string, Found & { pages: string[] }>();
for (const example of found) {
  const seen = unique.get(example.line);
  if (seen === undefined) unique.set(example.line, { ...example, pages: [example.page] });
  else if (!seen.pages.includes(example.page)) seen.pages.push(example.page);
}

it('has a way to run every shell example of README.md and docs/, and no other', () => {
  const unknown = found.filter(({ line }) => examples[line] === undefined).map(({ page, line }) => `${page}: ${line}`);
  expect(unknown, 'examples on a page that this table does not know').toEqual([]);
  const gone = Object.keys(examples).filter((line) => !unique.has(line));
  expect(gone, 'examples of this table that no page shows').toEqual([]);
});

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const outsideCode = text.replace(/^```[\s\S]*?^```/gm, '');
  for (const heading of outsideCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = counts.get(slug) ?? 0;
    counts.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

it('links from page to page only to files and headings that exist', () => {
  const broken: string[] = [];
  for (const page of [...pages, 'docs/commands.md']) {
    const text = readFileSync(path.join(projectRoot, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const link of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = link[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const targetPath = file === '' ? page : path.join(path.dirname(page), file);
      if (!existsSync(path.join(projectRoot, targetPath))) {
        broken.push(`${page}: ${target} (no file ${targetPath})`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(readFileSync(path.join(projectRoot, targetPath), 'utf8')).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${targetPath})`);
      }
    }
  }
  expect(broken).toEqual([]);
});

let temp: ReturnType<typeof makeTempDir>;
let shell: Shell;
const cleanups: Array<() => Promise<void> | void> = [];
beforeEach(async () => {
  temp = makeTempDir('plants-examples-');
  const dir = temp.dir;
  const bin = path.join(dir, '.bin');
  mkdirSync(bin);
  symlinkSync(binPath, path.join(bin, 'plants'));
  writeFileSync(path.join(dir, 'token.txt'), 'token-from-a-file\n');
  writeFileSync(path.join(dir, 'plant.json'), '{"id": 3, "name": "Moss", "tag": "sun"}\n');
  writeFileSync(path.join(dir, 'plants.ndjson'), '{"id": 10, "name": "Fern"}\n{"id": 11, "name": "Ivy"}\n');
  writeFileSync(
    path.join(dir, 'export.json'),
    '[{"id": 20, "name": "Oak"}, {"id": 21, "name": "Elm", "tag": "tree"}]\n',
  );
  copyFileSync(path.join(projectRoot, 'test/server/fixtures/test-tls-cert.pem'), path.join(dir, 'cert.pem'));
  copyFileSync(path.join(projectRoot, 'test/server/fixtures/test-tls-key.pem'), path.join(dir, 'key.pem'));
  // The default store allows POST /reset, for the examples of plants reset.
  const store = await startStoreServer({ allowReset: true });
  const second = await startStoreServer();
  cleanups.push(
    () => store.close(),
    () => second.close(),
  );
  shell = {
    dir,
    store,
    env: {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: dir,
      LANG: 'C.UTF-8',
      SHELL: '/bin/bash',
      TOKEN: TEST_TOKEN,
      SCRAPE_TOKEN: 'scrape-token-for-the-readme',
      // The examples talk to the default store; here that is a real one on a free port.
      PLANTS_BASE_URL: store.url,
      PLANTS_CONFIG_DIR: path.join(dir, '.config/plants'),
      PLANTS_DATA_DIR: path.join(dir, '.local/share/plants'),
      XDG_CONFIG_HOME: path.join(dir, '.config'),
      XDG_CACHE_HOME: path.join(dir, '.cache'),
      SECOND_STORE: second.url,
      SECOND_STORE_DB: second.dbPath,
    },
  };
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  temp.remove();
});

describe('the examples of README.md and docs/', () => {
  for (const { language, line, pages: shownOn } of unique.values()) {
    const example = examples[line];
    if (example === undefined) continue;
    if (example.walkthrough !== undefined) continue;
    const skip = example.notRunHere !== undefined || (language === 'fish' && !shellTestsRun('fish'));
    const adapted = example.rewrite === undefined ? '' : ' (adapted)';
    it.skipIf(skip)(`${line}${adapted} [${shownOn.join(', ')}]`, async () => {
      const command = example.rewrite?.(line, shell) ?? line;
      let exampleShell = shell;
      if (example.faultyStore !== undefined) {
        const faulty = await startStoreServer({
          faults: parseFaults(example.faultyStore.faults),
          faultSeed: example.faultyStore.faultSeed,
        });
        cleanups.push(() => faulty.close());
        exampleShell = {
          ...shell,
          store: faulty,
          env: { ...shell.env, PLANTS_BASE_URL: faulty.url, PLANTS_TOKEN: TEST_TOKEN },
        };
      }
      if (!example.loggedOut) {
        const login = await run(['plants', 'login', '--token', TEST_TOKEN], shell.dir, shell.env);
        expect(login.code, login.stderr).toBe(0);
      }
      const result = await runExample(language, command, example, exampleShell);
      expect(result.code, `${command}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(example.code ?? 0);
      await example.check?.(result, exampleShell);
    });
  }
});

describe('the walk-throughs of docs/', () => {
  // PostgreSQL's own commands as the page has them (as root, initdb and pg_ctl run as the
  // postgres user), on free ports instead of 5433, 4011 and 4012; each serve waited for before
  // the next step, as someone typing would.
  it.runIf(postgresTestsEnabled())('docs/postgres.md, sharing a store: two instances on one PostgreSQL', async () => {
    const steps = found.filter(({ line }) => examples[line]?.walkthrough === 'postgres-sharing');
    const ports = new Map<string, string>();
    for (const port of ['5433', '4011', '4012']) ports.set(port, String(await freePort()));
    const onFreePorts = (line: string) => line.replace(/\b(5433|4011|4012)\b/g, (port) => ports.get(port) ?? port);
    const script = steps.map(({ line }) => {
      if (line.startsWith('export PATH=/usr/lib/postgresql/')) return `export PATH=${postgresBin}:$PATH`;
      const step = onFreePorts(line);
      const serving = /^plants serve --port (\d+) .*&$/.exec(step);
      if (serving === null) return step;
      return `${step}\nfor try in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/${serving[1]}) 2>/dev/null && break; sleep 0.1; done`;
    });
    const prelude = postgresShellPrelude(shell.dir);
    const stop = 'kill $(jobs -p) 2>/dev/null; wait; pg_ctl -D ./pgdata stop -m fast > /dev/null 2>&1 || true';
    const result = await run(
      [
        'bash',
        '--norc',
        '--noprofile',
        '-e',
        '-o',
        'pipefail',
        '-c',
        [prelude, `trap '${stop}' EXIT`, ...script].join('\n'),
      ],
      shell.dir,
      shell.env,
      false,
      120_000,
    );
    expect(result.code, `${script.join('\n')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
    // What the page shows list printing: the comment lines after it.
    const page = texts.get('docs/postgres.md') ?? '';
    const listed = page.slice(page.indexOf('plants list --all --json')).split('\n').slice(1);
    const shown = listed
      .slice(
        0,
        listed.findIndex((line) => !line.startsWith('# ')),
      )
      .map((line) => line.slice(2));
    expect(shown).toHaveLength(2);
    expect(result.stdout.endsWith(`${shown.join('\n')}\n`), result.stdout).toBe(true);
  });
});

async function runExample(language: string, command: string, example: Example, shell: Shell): Promise<Run> {
  const cwd = example.inProject ? projectRoot : shell.dir;
  if (example.before !== undefined) {
    // Never spawnSync here: the store answers from this very process.
    const before = await run(['bash', '--norc', '--noprofile', '-c', example.before], cwd, shell.env);
    expect(before.code, `before: ${example.before}\n${before.stderr}`).toBe(0);
  }
  if (example.as === 'terminal') {
    const session = runCliInTty(command.split(' ').slice(1), shell.env);
    await session.waitFor('Paste your token: ');
    session.type(`${TEST_TOKEN}\r`);
    const code = await session.exited;
    return { code, stdout: session.screen, stderr: session.screen };
  }
  // exec: the signal that stops a server reaches plants, not the shell around it.
  const line = example.as === 'serve' ? `exec ${command}` : command;
  const argv =
    language === 'fish'
      ? ['fish', '--no-config', '-c', line]
      : ['bash', '--norc', '--noprofile', '-o', 'pipefail', '-c', line];
  return run(argv, cwd, shell.env, example.as === 'serve');
}

/** Runs a program to its end; a server is stopped as Ctrl-C would, once it has said where it listens. */
function run(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  server = false,
  timeoutMs = 20_000,
): Promise<Run> {
  const child = spawn(argv[0] ?? '', argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let stopping = false;
  const stopWhenListening = () => {
    if (!server || stopping || !stdout.includes('\n') || !stderr.includes('Ctrl-C stops the server')) return;
    stopping = true;
    child.kill('SIGTERM');
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    stopWhenListening();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    stopWhenListening();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

function storedTokens(shell: Shell): Record<string, string> {
  const file = path.join(shell.env.PLANTS_CONFIG_DIR ?? '', 'config.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).tokens ?? {}) : {};
}

function loggedIn(_run: Run, shell: Shell): void {
  expect(storedTokens(shell)[shell.store.url]).toBe(TEST_TOKEN);
}

function stored(plants: Array<{ id: bigint; name: string; tag: string | null }>) {
  return (_run: Run, shell: Shell) => expect(readStoredPlants(shell.store.dbPath)).toEqual(plants);
}

function servedFrom(banner: RegExp) {
  return (run: Run) => {
    expect(run.stdout).toMatch(/^https?:\/\/[^\n]+:\d+\n$/);
    expect(run.stderr).toMatch(banner);
    expect(run.stderr).toContain('Stopped.');
  };
}

function stopDetached(shell: Shell): Promise<void> {
  return stopDetachedServer(Number(readFileSync(path.join(shell.dir, 'plants.pid'), 'utf8')));
}

describe('the output shown in docs/cli.md', () => {
  it("--dry-run's result lines are what plants prints for the records they are about", async () => {
    const text = readFileSync(path.join(projectRoot, 'docs/cli.md'), 'utf8');
    const section = text.slice(text.indexOf('### Checking first: `--dry-run`'));
    const shown = /^```json\n([\s\S]*?)^```/m.exec(section)?.[1] ?? '';
    expect(shown).not.toBe('');
    // The records those lines are about: a valid one, and one without its name.
    const result = await runCli(['add', '--file', '-', '--dry-run'], { input: '{"id":1,"name":"Fern"}\n{"id":2}\n' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(shown);
  });
});
