import { Command, type Config, Flags, type Interfaces } from '@oclif/core';
import { DEFAULT_TIMEOUT_SECONDS } from './defaults.js';
import { readerFlag } from './flag-kinds.js';
import { type ActionContext, type AnyAction, runAction, runParsed } from './runner.js';

export const connectionFlags = {
  'base-url': Flags.string({
    summary: 'Base URL of the plant store (default: PLANTS_BASE_URL, then the config, then http://127.0.0.1:4010).',
    helpValue: 'URL',
  }),
  profile: Flags.string({
    summary:
      'Use this profile: its default store, its tokens and kept CA files (default: PLANTS_PROFILE, then default).',
    helpValue: 'NAME',
  }),
};

export const requestFlags = {
  timeout: readerFlag('seconds', {
    summary: 'Give up on a request after this many seconds.',
    helpValue: 'SECONDS',
    default: DEFAULT_TIMEOUT_SECONDS,
  }),
  'ca-cert': Flags.string({
    summary:
      "Trust the store's TLS certificate from this PEM file (its own, or its authority's), as curl --cacert; login keeps it for the origin.",
    helpValue: 'PATH',
  }),
  insecure: Flags.boolean({
    summary: 'Allow sending the token over plain http to a host that is not this machine.',
    default: false,
  }),
};

export const jsonFlag = {
  json: Flags.boolean({ summary: 'Print JSON on stdout instead of a human line.', default: false }),
  jq: Flags.string({
    summary: 'Filter the JSON through this jq expression (implies --json): strings print raw, other values as JSON.',
    description:
      'jq 1.8 runs inside plants (no jq needed), on each JSON value --json would print, as jq reads an NDJSON stream; ids keep every digit unless arithmetic touches them. An expression jq cannot compile is exit 2 before anything is sent; an error on a value is exit 2 naming its line, after what came before it.',
    helpValue: 'EXPR',
  }),
};

export const storeFlags = { ...connectionFlags, ...requestFlags, ...jsonFlag };

/** What oclif's route gives help and autocomplete besides the runner's context. */
export interface OclifContext extends ActionContext {
  oclif: Config;
  argv: string[];
}

/** A command class's flags and arguments as its declaration types them. */
export interface Parsed<C extends { flags?: Interfaces.FlagInput; args?: Interfaces.ArgInput }> {
  flags: Interfaces.InferredFlags<C['flags']>;
  args: Interfaces.InferredArgs<NonNullable<C['args']>>;
}

/** The base of every plants command; run() is for the commands only oclif runs (help, autocomplete). */
export abstract class PlantsCommand extends Command {
  /** An action of src/cli/actions/, or of src/cli/help/ (which needs oclif's Config). */
  declare static action: (parsed: never, context: OclifContext) => ReturnType<AnyAction>;

  async run(): Promise<void> {
    const parsed = await this.parse();
    const action = (this.ctor as typeof PlantsCommand).action as AnyAction;
    const oclif = { oclif: this.config, argv: this.argv };
    const exitCode = await runAction((context) => runParsed(action, parsed, { ...context, ...oclif }), {
      version: this.config.version,
      json: false,
    });
    if (exitCode !== 0) process.exitCode = exitCode;
  }
}
