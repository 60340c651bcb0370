import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS, MAX_RETRIES, parseTimeoutSeconds } from './defaults.js';
import { readEnv } from './env.js';
import { Factory } from './factory.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

/**
 * `plants --version` and a plain one-record `plants add --id … --name …`, run without oclif.
 * A `plants add` in a shell loop pays Node's start-up every time; loading oclif on top
 * of that was most of the cost. Only invocations whose every flag is valid are taken here,
 * through the same library functions as the oclif command; anything else (help, --file, a
 * bad or repeated flag) returns false and goes to oclif, which gives its usual messages.
 */
export async function runFastPath(argv: readonly string[], packageJsonUrl: URL): Promise<boolean> {
  if (argv[0] === '--version') {
    process.stdout.write(
      `plants/${readVersion(packageJsonUrl)} ${process.platform}-${process.arch} node-${process.version}\n`,
    );
    return true;
  }
  const args = argv[0] === 'add' ? argv.slice(1) : argv[0] === 'plant' && argv[1] === 'add' ? argv.slice(2) : undefined;
  const flags = args === undefined ? undefined : parseAddFlags(args);
  if (flags === undefined) return false;

  const env = readEnv();
  const output = new Output({ stdout: process.stdout, stderr: process.stderr }, { noColor: env.noColor });
  const factory = new Factory({ env, version: readVersion(packageJsonUrl), output });
  try {
    const { applyPlantFlags } = await import('./input/plant-input.js');
    const { addSinglePlant } = await import('./actions/add-single.js');
    await addSinglePlant(applyPlantFlags({}, flags), flags, factory, output);
  } catch (error) {
    process.exitCode = reportError(error, output, { json: flags.json });
  } finally {
    await factory.close();
  }
  return true;
}

interface FastAddFlags {
  id: string;
  name: string;
  tag: string | undefined;
  json: boolean;
  baseUrl: string | undefined;
  insecure: boolean;
  timeoutSeconds: number;
  retries: number;
}

function parseAddFlags(args: readonly string[]): FastAddFlags | undefined {
  let parsed: ReturnType<typeof parseAdd>;
  try {
    parsed = parseAdd(args);
  } catch {
    return undefined;
  }
  const names = parsed.tokens.filter((token) => token.kind === 'option').map((token) => token.name);
  if (new Set(names).size !== names.length) return undefined;
  const { id, name, tag, json, insecure } = parsed.values;
  const timeout =
    parsed.values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : parseTimeoutSeconds(parsed.values.timeout);
  const retries = parsed.values.retries === undefined ? DEFAULT_RETRIES : Number(parsed.values.retries);
  if (id === undefined || name === undefined || timeout === undefined) return undefined;
  if (!/^\d+$/.test(parsed.values.retries ?? '0') || retries > MAX_RETRIES) return undefined;
  return {
    id,
    name,
    tag,
    json: json === true,
    baseUrl: parsed.values['base-url'],
    insecure: insecure === true,
    timeoutSeconds: timeout,
    retries,
  };
}

const addOptions = {
  id: { type: 'string' },
  name: { type: 'string' },
  tag: { type: 'string' },
  json: { type: 'boolean' },
  'base-url': { type: 'string' },
  insecure: { type: 'boolean' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
} as const;

function parseAdd(args: readonly string[]) {
  return parseArgs({ args: [...args], options: addOptions, strict: true, allowPositionals: false, tokens: true });
}

function readVersion(packageJsonUrl: URL): string {
  return (JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { version: string }).version;
}
