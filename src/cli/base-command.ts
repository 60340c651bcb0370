import { Command, Errors, Flags } from '@oclif/core';
import { InvalidInputError, PlantsError } from '../errors.js';
import { readEnv } from './env.js';
import { Factory } from './factory.js';
import { flagSuggestions } from './help/suggest.js';
import { type UsageCommand, usageSentence } from './help/usage-error.js';
import { processStreams } from './io-streams.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';
import { maskWords, secretWords } from './secrets.js';

/** Flags every command that talks to a store shares. */
export const connectionFlags = {
  'base-url': Flags.string({
    summary: 'Base URL of the plant store (default: PLANTS_BASE_URL, then the config, then http://127.0.0.1:4010).',
    helpValue: 'URL',
  }),
};

export const jsonFlag = {
  json: Flags.boolean({ summary: 'Print JSON on stdout instead of a human line.', default: false }),
};

/**
 * The base of every plants command: builds the streams (the process's), the factory and the
 * output once, and turns every error into a message on stderr (and a JSON document with --json)
 * plus its exit code. This is the only place errors become exit codes.
 */
export abstract class PlantsCommand extends Command {
  protected factory!: Factory;
  protected output!: Output;

  protected override async init(): Promise<void> {
    await super.init();
    const env = readEnv();
    const io = processStreams();
    this.output = await Output.open(io, { color: env.color });
    this.factory = new Factory({ env, version: this.config.version, io, output: this.output });
  }

  /**
   * Parses with oclif and runs the command's action (src/cli/run/<id>.ts), the one the fast route
   * runs too. A command with a run() of its own is left to oclif by the fast route.
   */
  async run(): Promise<void> {
    const parsed = await this.parse(this.ctor);
    const { runOf } = await import('./run-command.js');
    const exitCode = await (await runOf(this.ctor.id ?? this.id ?? ''))(parsed, {
      factory: this.factory,
      output: this.output,
    });
    if (exitCode !== undefined && exitCode !== 0) process.exitCode = exitCode;
  }

  /** --json is honoured even when flag parsing itself failed. */
  protected wantsJson(): boolean {
    const end = this.argv.indexOf('--');
    return (end === -1 ? this.argv : this.argv.slice(0, end)).includes('--json');
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<void> {
    if (error instanceof Errors.ExitError) throw error;
    const output = this.output ?? new Output(processStreams(), { color: 'never' });
    const usage =
      error instanceof Errors.CLIError && !(error instanceof PlantsError) ? this.usageError(error) : undefined;
    process.exitCode = reportError(usage ?? error, output, { json: this.wantsJson() });
  }

  /** One of oclif's usage errors as one sentence naming what is wrong, with its hints. Exit 2. */
  private usageError(error: Errors.CLIError): InvalidInputError {
    const command: UsageCommand = {
      id: this.id ?? '',
      args: (this.ctor.args ?? {}) as UsageCommand['args'],
      flags: (this.ctor.flags ?? {}) as UsageCommand['flags'],
    };
    const { message, hints } = usageSentence(error, command, this.argv);
    return new InvalidInputError(maskArgv(message, this.argv, this.config.commands), {
      hints: [
        ...flagSuggestions(error, Object.keys(command.flags)),
        ...hints,
        `See \`plants ${command.id.replaceAll(':', ' ')} --help\`.`,
      ],
    });
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    await this.factory?.close();
    await super.finally(error);
  }
}

/**
 * A usage error never repeats a word of the command line that may be a token (`--tokne=T`,
 * `plants help T`): flag values and stray words of 8 characters or more are masked.
 */
function maskArgv(
  message: string,
  argv: readonly string[],
  commands: readonly { id: string; aliases: string[]; flags: Record<string, { char?: string; type?: string }> }[],
) {
  const words = new Set(commands.flatMap((command) => [command.id, ...command.aliases].flatMap((id) => id.split(':'))));
  const flags = new Set(
    commands.flatMap((command) =>
      Object.entries(command.flags)
        .filter(([, { type }]) => type === 'option')
        .flatMap(([name, { char }]) => (char === undefined ? [name] : [name, char])),
    ),
  );
  return maskWords(message, secretWords(argv, { words, flags }));
}
