import { Command, type Config, Errors, Flags } from '@oclif/core';
import { InvalidInputError, PlantsError } from '../errors.js';
import { DEFAULT_TIMEOUT_SECONDS } from './defaults.js';
import { readerFlag } from './flag-kinds.js';
import { flagSuggestions } from './help/suggest.js';
import { type UsageCommand, usageSentence } from './help/usage-error.js';
import { type ActionContext, type AnyAction, runAction, runParsed } from './runner.js';
import { knownWordsOf, maskWords, secretWords } from './secrets.js';

/** Flags every command that talks to a store shares. */
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

/** Flags of commands that send requests. */
export const requestFlags = {
  timeout: readerFlag(
    'seconds',
    (input) => `--timeout must be a number of seconds above 0 (got ${JSON.stringify(input)})`,
    {
      summary: 'Give up on a request after this many seconds.',
      helpValue: 'SECONDS',
      default: DEFAULT_TIMEOUT_SECONDS,
    },
  ),
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

/** What oclif's route gives an action besides the runner's context: what help and autocomplete need. */
export interface OclifContext extends ActionContext {
  /** oclif's own Config: its commands, topics, plugins, shell and help class. */
  oclif: Config;
  /** The command's words as oclif was given them. */
  argv: string[];
}

/**
 * The base of every plants command: its run() is oclif's route to the one runner (runner.ts),
 * which opens the output over the process's streams, builds the factory, and turns every error
 * into a message on stderr (and a JSON document with --json) plus its exit code.
 */
export abstract class PlantsCommand extends Command {
  /**
   * What the command does, given its flags and arguments as oclif parses them: an action of
   * src/cli/actions/, which the fast route finds by its name in the route table, or of
   * src/cli/help/ (help, autocomplete), which needs oclif's Config and is left to oclif.
   */
  declare static action: (parsed: never, context: OclifContext) => ReturnType<AnyAction>;

  async run(): Promise<void> {
    // --json is honoured even when flag parsing itself failed.
    const end = this.argv.indexOf('--');
    const json = (end === -1 ? this.argv : this.argv.slice(0, end)).includes('--json');
    const exitCode = await runAction(
      async (context) => {
        try {
          const parsed = await this.parse(this.ctor);
          const oclifContext: OclifContext = { ...context, oclif: this.config, argv: this.argv };
          return await runParsed((this.ctor as typeof PlantsCommand).action as AnyAction, parsed, oclifContext);
        } catch (error) {
          throw error instanceof Errors.CLIError && !(error instanceof PlantsError) ? this.usageError(error) : error;
        }
      },
      { version: this.config.version, json },
    );
    if (exitCode !== 0) process.exitCode = exitCode;
  }

  /** One of oclif's usage errors as one sentence naming what is wrong, with its hints. Exit 2. */
  private usageError(error: Errors.CLIError): InvalidInputError {
    const command: UsageCommand = {
      id: this.id ?? '',
      args: (this.ctor.args ?? {}) as UsageCommand['args'],
      flags: (this.ctor.flags ?? {}) as UsageCommand['flags'],
    };
    const { message, hints } = usageSentence(error, command, this.argv);
    // Never a word of the command line that may be a token (`--tokne=T`, `plants help T`): flag
    // values and stray words of 8 characters or more are masked.
    const known = knownWordsOf(this.config.commands.map((loadable) => [loadable.id, loadable]));
    return new InvalidInputError(maskWords(message, secretWords(this.argv, known)), {
      hints: [
        ...flagSuggestions(error, Object.keys(command.flags)),
        ...hints,
        `See \`plants ${command.id.replaceAll(':', ' ')} --help\`.`,
      ],
    });
  }
}
