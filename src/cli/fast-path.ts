import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_CONCURRENCY,
  MAX_RETRIES,
  parseTimeoutSeconds,
} from './defaults.js';
import { readEnv } from './env.js';
import { Factory } from './factory.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

/**
 * The everyday commands (`add`, of one record or from --file, `get`, `list`, `delete`,
 * `status`, `login`, `logout`), run without oclif (bin/run.js answers `--version` and `--help`
 * itself). These are what people put in shell loops, and each pays Node's start-up; loading
 * oclif on top of that was most of their cost (and a fifth of a 100,000-record bulk add's time:
 * 0.27 s of 2.3). Only invocations whose every flag and argument is valid are taken here,
 * through the same action functions as the oclif commands; anything else (a command's help, an
 * interactive add, a bad, unknown or repeated flag, a missing or extra argument) returns false
 * and goes to oclif, which gives its usual messages.
 */
export async function runFastPath(argv: readonly string[], packageJsonUrl: URL): Promise<boolean> {
  const named = argv[0] === 'plant' && argv[1] !== undefined && aliased.has(argv[1]) ? argv.slice(1) : argv;
  const route = named[0] === undefined ? undefined : routes[named[0]];
  const parsed = route === undefined ? undefined : parseRoute(route, named.slice(1));
  const action = route === undefined || parsed === undefined ? undefined : route.plan(parsed.values, parsed.args);
  if (action === undefined || parsed === undefined) return false;

  const env = readEnv();
  const output = new Output({ stdout: process.stdout, stderr: process.stderr }, { color: env.color });
  const factory = new Factory({ env, version: readVersion(packageJsonUrl), output, shortLived: true });
  try {
    await action(factory, output);
  } catch (error) {
    process.exitCode = reportError(error, output, { json: parsed.values.json === true });
  } finally {
    await factory.close();
  }
  return true;
}

type Values = Record<string, string | boolean | undefined>;
type Action = (factory: Factory, output: Output) => Promise<void>;

interface Route {
  /** The command's flags, as node:util parseArgs takes them. */
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  /** How many arguments it takes, exactly. */
  args: number;
  /** What to run, or undefined when a flag value is one oclif would refuse (oclif then says so). */
  plan(values: Values, args: readonly string[]): Action | undefined;
}

const connection = { 'base-url': { type: 'string' } } as const;
const request = {
  ...connection,
  insecure: { type: 'boolean' },
  timeout: { type: 'string' },
  'ca-cert': { type: 'string' },
} as const;
const json = { json: { type: 'boolean' } } as const;

/** The request flags as the factory takes them; undefined for a --timeout oclif would refuse. */
function clientRequest(values: Values) {
  const timeoutSeconds =
    values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseTimeoutSeconds(String(values.timeout));
  if (timeoutSeconds === undefined) return undefined;
  return {
    flagBaseUrl: text(values['base-url']),
    insecure: values.insecure === true,
    timeoutSeconds,
    caCert: text(values['ca-cert']),
  };
}

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A whole number from min to max, as oclif's integer flags take it; undefined otherwise. */
function integer(value: string | boolean | undefined, fallback: number, min: number, max: number) {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const number = Number(value);
  return number >= min && number <= max ? number : undefined;
}

const routes: Record<string, Route> = {
  add: {
    options: {
      id: { type: 'string' },
      name: { type: 'string' },
      tag: { type: 'string' },
      file: { type: 'string', short: 'f' },
      concurrency: { type: 'string' },
      'fail-fast': { type: 'boolean' },
      'skip-existing': { type: 'boolean' },
      retries: { type: 'string' },
      ...request,
      ...json,
    },
    args: 0,
    plan(values) {
      const client = clientRequest(values);
      const retries = integer(values.retries, DEFAULT_RETRIES, 0, MAX_RETRIES);
      const concurrency = integer(values.concurrency, DEFAULT_CONCURRENCY, 1, MAX_CONCURRENCY);
      const plant = { id: text(values.id), name: text(values.name), tag: text(values.tag), file: text(values.file) };
      if (client === undefined || retries === undefined || concurrency === undefined) return undefined;
      // Without --file, --id and --name: an interactive add, oclif's.
      if (plant.file === undefined && (plant.id === undefined || plant.name === undefined)) return undefined;
      return async (factory, output) => {
        const { addPlants } = await import('./actions/add-plants.js');
        await addPlants(
          {
            plant,
            json: values.json === true,
            baseUrl: client.flagBaseUrl,
            insecure: client.insecure,
            timeoutSeconds: client.timeoutSeconds,
            retries,
            caCert: client.caCert,
            concurrency,
            failFast: values['fail-fast'] === true,
            skipExisting: values['skip-existing'] === true,
          },
          factory,
          output,
        );
      };
    },
  },
  get: {
    options: { ...request, ...json },
    args: 1,
    plan(values, [id = '']) {
      const client = clientRequest(values);
      if (client === undefined) return undefined;
      return async (factory, output) => {
        const { showPlant } = await import('./actions/show-plant.js');
        await showPlant(id, { ...client, json: values.json === true }, factory, output);
      };
    },
  },
  list: {
    options: { limit: { type: 'string' }, after: { type: 'string' }, all: { type: 'boolean' }, ...request, ...json },
    args: 0,
    plan(values) {
      const client = clientRequest(values);
      const limit = integer(values.limit, 100, 1, 1000);
      if (client === undefined || limit === undefined) return undefined;
      return async (factory, output) => {
        const { listPlants } = await import('./actions/list-plants.js');
        const options = { limit, afterText: text(values.after), all: values.all === true, json: values.json === true };
        await listPlants({ ...client, ...options }, factory, output);
      };
    },
  },
  delete: {
    options: { yes: { type: 'boolean', short: 'y' }, ...request, ...json },
    args: 1,
    plan(values, [id = '']) {
      const client = clientRequest(values);
      if (client === undefined) return undefined;
      return async (factory, output) => {
        const { deletePlant } = await import('./actions/delete-plant.js');
        await deletePlant(id, { ...client, yes: values.yes === true, json: values.json === true }, factory, output);
      };
    },
  },
  status: {
    options: { ...request, ...json },
    args: 0,
    plan(values) {
      const client = clientRequest(values);
      if (client === undefined) return undefined;
      return async (factory, output) => {
        const { showStatus } = await import('./actions/show-status.js');
        await showStatus({ ...client, json: values.json === true }, factory, output);
      };
    },
  },
  login: {
    options: { ...request, token: { type: 'string' }, 'with-token': { type: 'boolean' } },
    args: 0,
    plan(values) {
      const client = clientRequest(values);
      // The two are exclusive: oclif says so.
      if (client === undefined || (values.token !== undefined && values['with-token'] !== undefined)) return undefined;
      return async (factory, output) => {
        const { logIn } = await import('./actions/log-in.js');
        const options = { token: text(values.token), withToken: values['with-token'] === true };
        await logIn({ ...client, ...options }, factory, output);
      };
    },
  },
  logout: {
    options: { ...connection },
    args: 0,
    plan(values) {
      return async (factory, output) => {
        const { logOut } = await import('./actions/log-out.js');
        await logOut({ flagBaseUrl: text(values['base-url']) }, factory, output);
      };
    },
  },
};

/** The commands with a route here: bin/run.js loads this bundle for these alone (a test holds the two lists equal). */
export const fastPathCommands: readonly string[] = Object.keys(routes);

/** The commands that also answer as `plants plant <command>` (their oclif aliases `plant:<command>`). */
const aliased = new Set(['add', 'get', 'list', 'delete']);

/** The flags and arguments, or undefined for anything oclif should see (and answer) itself. */
function parseRoute(route: Route, argv: readonly string[]): { values: Values; args: string[] } | undefined {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options: route.options, strict: true, allowPositionals: true, tokens: true });
  } catch {
    return undefined;
  }
  const tokens = parsed.tokens ?? [];
  // `--` and repeated flags: oclif's rules, oclif's messages.
  if (tokens.some((token) => token.kind === 'option-terminator')) return undefined;
  const names = tokens.filter((token) => token.kind === 'option').map((token) => token.name);
  if (new Set(names).size !== names.length) return undefined;
  if (parsed.positionals.length !== route.args) return undefined;
  return { values: parsed.values as Values, args: parsed.positionals };
}

function readVersion(packageJsonUrl: URL): string {
  return (JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { version: string }).version;
}
