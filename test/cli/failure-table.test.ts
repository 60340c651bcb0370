import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.js';
import { type FailureServers, useFailureServers } from '../helpers/failure-servers.js';
import { type InProcessResult, runCommandLine } from '../helpers/in-process.js';
import { expectOneLineError } from '../helpers/reliability.js';
import { useTempUser } from '../helpers/user.js';

/**
 * One table of failures, every command that talks to a store: the same failure gets the same
 * message, hint and exit code whichever command met it, in human and --json modes, and the exit
 * code is the one README's exit-code table gives (read from README here, so the two cannot
 * drift). A new command is one entry in `commands`; a new failure one entry in `failures`.
 *
 * Each command line runs in this process as the fast route runs it (runCommandLine): the message,
 * hint and exit code are made by the action and the one error report, the same in a process; that
 * a process ends with the code it is given is held by the command suites (test/commands/) and
 * the entry's (test/entry/main.node-e2e.test.ts).
 */

const token = 'failure-table-token-0123';

interface CommandRow {
  name: string;
  args: string[];
  input?: string;
  /** Many records: NDJSON results on stdout, a summary on stderr. */
  bulk?: boolean;
  /** The Error document of a failure, from what --json printed. */
  jsonError?: (stdout: string) => unknown;
}

const commands: CommandRow[] = [
  { name: 'add one', args: ['add', '--id', '1', '--name', 'Fern'] },
  {
    name: 'add many',
    // One request at a time: the failure that stops the run is the first record's.
    args: ['add', '--file', '-', '--concurrency', '1'],
    input: '{"id":1,"name":"Fern"}\n{"id":2,"name":"Ivy"}\n',
    bulk: true,
    jsonError: (stdout) => JSON.parse(stdout.split('\n')[0] ?? '').error,
  },
  { name: 'list', args: ['list'] },
  { name: 'list --all', args: ['list', '--all'] },
  { name: 'get', args: ['get', '1'] },
  { name: 'delete', args: ['delete', '1', '--yes'] },
  { name: 'reset', args: ['reset', '--yes'] },
  { name: 'status', args: ['status'], jsonError: (stdout) => JSON.parse(stdout).store.error },
];

/** README's exit-code table: the code whose meaning contains the phrase. */
function readmeExitCode(phrase: string): number {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Exit codes'));
  const rows = [...section.matchAll(/^\| (\d+) \| (.*) \|$/gm)];
  const found = rows.filter(([, , meaning]) => meaning?.includes(phrase));
  expect(
    found.map(([, code]) => code),
    `README exit-code rows mentioning "${phrase}"`,
  ).toHaveLength(1);
  return Number(found[0]?.[1]);
}

const unreachable = 'the server could not be reached';
const refusedToken = 'the server refused the token';
const answeredError = 'the server answered with an error';

interface FailureRow {
  name: string;
  url: (servers: FailureServers) => string;
  /** README's words for the exit code. */
  exit: string;
  /** The message (after `plants: `). */
  message: RegExp;
  /** The one hint line, or none. */
  hint: RegExp | undefined;
  /** The `error` of the --json document: the HTTP status, or 0 when there was no answer. */
  json: number;
  /** Which token is sent: one stored by login (default), PLANTS_TOKEN's, or none. */
  token?: 'stored' | 'environment' | 'none';
  args?: string[];
  /** Commands this class cannot happen to, and why. */
  notFor?: Record<string, string>;
  /**
   * What `add` (one record or many) and `delete` say instead, when the request was sent and no
   * whole answer came back (nor to reading the plant back): it may have been added (deleted),
   * which is not the same as not sent (issue 17, item 8; issue 42 for delete).
   */
  sentNoAnswer?: { cause: string; hints: RegExp[] };
}

const mayHaveBeen = (done: string, cause: string) =>
  new RegExp(`^sent, no answer: plant 1 may or may not have been ${done} \\(${cause}\\)$`);
// The look-up repeats the --base-url the add was given: without it, it would ask another store.
const lookItUp =
  /^`plants get 1 --base-url http:\/\/127\.0\.0\.1:\d+(\/truncated)?` shows whether it is in the store\.$/;

const port = String.raw`\d+`;
const local = String.raw`http://127\.0\.0\.1:${port}`;

const failures: FailureRow[] = [
  {
    name: 'refused connection',
    url: (s) => s.refused,
    exit: unreachable,
    message: new RegExp(`^cannot reach ${local}: connection refused$`),
    hint: new RegExp(`^Is a store listening there\\? \`plants serve --port ${port}\` starts one\\.$`),
    json: 0,
  },
  {
    // plants serve listens on 127.0.0.1 unless --host says otherwise: `serve --port N` alone is no answer.
    name: 'refused connection on [::1]',
    url: (s) => s.refusedIpv6,
    exit: unreachable,
    message: new RegExp(`^cannot reach http://\\[::1\\]:(${port}): connection refused$`),
    hint: new RegExp(
      `^plants serve listens on 127\\.0\\.0\\.1 unless --host says otherwise: use http://127\\.0\\.0\\.1:(${port}), or start it with \`plants serve --host ::1 --port \\1\`\\.$`,
    ),
    json: 0,
  },
  {
    name: 'time-out',
    url: (s) => s.silent,
    args: ['--timeout', '1'],
    exit: unreachable,
    message: new RegExp(`^no answer from ${local} within 1 s$`),
    hint: /^Raise the limit with --timeout SECONDS\.$/,
    json: 0,
    sentNoAnswer: {
      cause: `no answer from ${local} within 1 s`,
      hints: [lookItUp, /^Raise the limit with --timeout SECONDS\.$/],
    },
  },
  {
    name: 'DNS failure',
    url: (s) => s.unresolvable,
    exit: unreachable,
    message:
      /^cannot reach https:\/\/plants-store\.invalid: the host name plants-store\.invalid could not be resolved \(DNS\)$/,
    hint: /^Check the host in the base URL/,
    json: 0,
  },
  {
    name: 'TLS to a plain-HTTP store',
    url: (s) => s.tlsToPlain,
    exit: unreachable,
    message: /^cannot reach https:\/\/127\.0\.0\.1:\d+\/internal: the server does not speak TLS on this port$/,
    hint: new RegExp(`^If it is a plain-HTTP store, try ${local}/internal$`),
    json: 0,
  },
  {
    // A TLS server closes a connection that starts no handshake: no HTTP answer ever comes.
    name: 'plain HTTP to a TLS store',
    url: (s) => s.plainToTls,
    exit: unreachable,
    message: new RegExp(`^cannot reach ${local}: the server speaks TLS \\(HTTPS\\) on this port, not plain HTTP$`),
    hint: /^Use https:\/\/127\.0\.0\.1:\d+$/,
    json: 0,
  },
  {
    name: 'TLS certificate not trusted',
    url: (s) => s.untrustedTls,
    exit: unreachable,
    message: /^cannot reach https:\/\/127\.0\.0\.1:\d+: its TLS certificate is self-signed, and not trusted here$/,
    hint: /^Trust it with --ca-cert FILE \(its certificate, or its authority's, as PEM\); `plants login --ca-cert FILE` keeps it for this origin\.$/,
    json: 0,
  },
  {
    name: '401 with no token',
    url: (s) => s.scripted('unauthorized'),
    token: 'none',
    exit: refusedToken,
    message: /^the server answered 401: invalid token$/,
    hint: new RegExp(
      `^No token is stored for ${local}: run \`plants login --base-url ${local}/unauthorized\` or set PLANTS_TOKEN\\.$`,
    ),
    json: 401,
  },
  {
    name: '401 with a stored token',
    url: (s) => s.scripted('unauthorized'),
    exit: refusedToken,
    message: /^the server answered 401: invalid token$/,
    // A store on this machine is most often plants serve, which may have restarted with a new token.
    hint: new RegExp(
      `^This store may have started with a new token since the login \\(plants serve makes one up each start with --memory, else keeps it beside its file, as <file>\\.token\\): its banner shows the token, and \`plants login --base-url ${local}/unauthorized --with-token\` stores it\\.$`,
    ),
    json: 401,
  },
  {
    name: '401 with PLANTS_TOKEN',
    url: (s) => s.scripted('unauthorized'),
    token: 'environment',
    exit: refusedToken,
    message: /^the server answered 401: invalid token$/,
    hint: /^The token sent was PLANTS_TOKEN's \(it comes before any stored token\)/,
    json: 401,
  },
  {
    name: '403',
    url: (s) => s.scripted('forbidden'),
    exit: refusedToken,
    message: /^the server answered 403: not allowed$/,
    hint: /^Check the token: `plants login --base-url/,
    json: 403,
  },
  {
    name: '404',
    url: (s) => s.scripted('not-found'),
    exit: answeredError,
    message: /^the server answered 404: no such plant$/,
    hint: undefined,
    json: 404,
    notFor: {
      status:
        'a 404 to GET /plants is a store with no list: status says the token was not checked, exit 0, as login (test/commands/login.e2e.test.ts)',
    },
  },
  {
    name: '409',
    url: (s) => s.scripted('conflict'),
    exit: answeredError,
    message: /^the server answered 409: a plant with id 1 already exists$/,
    hint: undefined,
    json: 409,
  },
  {
    name: '429 with Retry-After',
    url: (s) => s.scripted('too-many'),
    exit: answeredError,
    message: /^the server answered 429: slow down$/,
    hint: /^The store is busy \(429\): tried 4 times over \d+\.\d s; --retries N tries more often, or try again later\.$/,
    json: 429,
  },
  {
    name: '503 with Retry-After',
    url: (s) => s.scripted('unavailable'),
    exit: answeredError,
    message: /^the server answered 503: draining$/,
    hint: /^The store is unavailable for now \(503\): tried 4 times over \d+\.\d s; --retries N tries more often, or try again later\.$/,
    json: 503,
  },
  {
    name: '500',
    url: (s) => s.scripted('internal'),
    exit: answeredError,
    message: /^the server answered 500: internal server error$/,
    hint: undefined,
    json: 500,
  },
  {
    name: 'HTML 502 from a proxy',
    url: (s) => s.scripted('proxy-html'),
    exit: answeredError,
    message: /^the server answered 502 with a text\/html body instead of an Error: <html><head><title>502 Bad Gateway/,
    hint: undefined,
    json: 502,
  },
  {
    name: 'truncated body',
    url: (s) => s.scripted('truncated'),
    exit: unreachable,
    message: new RegExp(`^cannot reach ${local}/truncated: the connection was closed before a whole answer arrived$`),
    hint: undefined,
    json: 0,
    sentNoAnswer: {
      cause: `cannot reach ${local}/truncated: the connection was closed before a whole answer arrived`,
      hints: [lookItUp],
    },
  },
  {
    name: 'body of the wrong shape',
    url: (s) => s.scripted('wrong-shape'),
    exit: answeredError,
    message: /^the server answered 200 but JSON that is not (a Plant|a list of plants): \{"unexpected":true\}$/,
    hint: undefined,
    json: 200,
    notFor: { delete: 'a delete reads no body: any 200 or 204 is its success' },
  },
];

/** Commands whose manifest lists a --json flag. */
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { flags: Record<string, unknown> }>;
};
const takesJson = (command: CommandRow) => manifest.commands[command.args[0] ?? '']?.flags.json !== undefined;

const servers = useFailureServers();
/** A user with the token stored for every failing origin, and one with none stored. */
const loggedIn = useTempUser(undefined, { env: { NO_COLOR: '1' } });
const newcomer = useTempUser(undefined, { env: { NO_COLOR: '1' } });

beforeAll(() => {
  const origins = failures.map((row) => new URL(row.url(servers)).origin);
  mkdirSync(loggedIn.configDir, { recursive: true });
  writeFileSync(
    path.join(loggedIn.configDir, 'config.json'),
    JSON.stringify({ tokens: Object.fromEntries(origins.map((origin) => [origin, token])) }),
    { mode: 0o600 },
  );
});

function run(command: CommandRow, failure: FailureRow, json: boolean): Promise<InProcessResult> {
  const user = failure.token === 'none' || failure.token === 'environment' ? newcomer : loggedIn;
  const env: Record<string, string> = {
    ...user.env,
    ...(failure.token === 'environment' ? { PLANTS_TOKEN: token } : {}),
  };
  const args = [
    ...command.args,
    '--base-url',
    failure.url(servers),
    ...(failure.args ?? []),
    ...(json ? ['--json'] : []),
  ];
  return runCommandLine(args, { env, streams: { input: command.input ?? '' } });
}

/** The message and hint lines the failure left on stderr. */
function reported(command: CommandRow, stderr: string): { message: string | undefined; hints: string[] } {
  expect(stderr, 'a stack trace on stderr').not.toMatch(/^\s+at /m);
  if (command.bulk !== true) {
    const [first = '', ...hints] = expectOneLineError(stderr);
    return { message: first.replace(/^plants: /, ''), hints: hints.map((hint) => hint.trim()) };
  }
  // A bulk add reports the failure that stopped it as `plants: …`, and others by line.
  const lines = stderr.split('\n');
  const at = lines.findIndex((line) => /^(plants: | {2}line \d+: )/.test(line));
  const hints = lines.slice(at + 1).filter((line) => /^ {2}\S/.test(line) && !/^ {2}line \d+: /.test(line));
  return {
    message: lines[at]?.replace(/^(plants: | {2}line \d+: )/, ''),
    hints: hints.map((hint) => hint.trim()),
  };
}

describe.each(failures)('$name', (failure) => {
  const applicable = commands.filter((command) => failure.notFor?.[command.args[0] ?? ''] === undefined);
  // The commands side by side, each with its two modes: most of a run is waiting, for the
  // back-off of retries and for time-outs (236 runs in all).
  it.concurrent.each(applicable)(
    '$name: same message, hint and exit code in human and --json modes',
    async (command) => {
      const exit = readmeExitCode(failure.exit);
      const [human, json] = await Promise.all([
        run(command, failure, false),
        takesJson(command) ? run(command, failure, true) : undefined,
      ]);

      expect(human.code, `exit code; stderr: ${human.stderr}`).toBe(exit);
      const said = reported(command, human.stderr);
      const changed = { add: 'added', delete: 'deleted' }[command.args[0] ?? ''];
      const expected =
        changed !== undefined && failure.sentNoAnswer !== undefined
          ? { message: mayHaveBeen(changed, failure.sentNoAnswer.cause), hints: failure.sentNoAnswer.hints }
          : { message: failure.message, hints: failure.hint === undefined ? [] : [failure.hint] };
      expect(said.message).toMatch(expected.message);
      expect(said.hints).toEqual(expected.hints.map((hint) => expect.stringMatching(hint)));

      if (json === undefined) return;
      expect(json.code, `--json exit code; stderr: ${json.stderr}`).toBe(exit);
      // How long the retries took is the machine's, not the mode's: under load the two runs may
      // differ by a tenth of a second (tried 4 times over 0.0 s, and over 0.1 s).
      const untimed = (text: string) => text.replace(/ over \d+\.\d s;/g, ' over N s;');
      expect(untimed(JSON.stringify(reported(command, json.stderr)))).toBe(untimed(JSON.stringify(said)));
      const document = (command.jsonError ?? ((stdout: string) => JSON.parse(stdout)))(json.stdout) as {
        error: unknown;
        message: unknown;
      };
      expect(document.error).toBe(failure.json);
      expect(typeof document.message).toBe('string');
    },
  );
});
