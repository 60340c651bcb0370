import { parseArgv } from '../entry/parse-argv.js';
import type { CommandRoute } from '../entry/route-table.js';
import { ExitCode, InvalidInputError } from '../errors.js';
import { type PlantsEnv, readEnv } from './env.js';
import { Factory } from './factory.js';
import { type IOStreams, processStreams } from './io-streams.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

export interface ActionContext {
  factory: Factory;
  output: Output;
}

/**
 * What `plants <command>` does once parsed (the `static action` its declaration names). It
 * resolves with an exit code when it ends in one without throwing (a bulk add with failures,
 * `status` without a token). Each action's own signature names the options it reads.
 */
export type AnyAction = (
  parsed: { flags: Record<string, unknown>; args: Record<string, unknown> },
  context: ActionContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: most actions end in no exit code of their own and return nothing.
) => Promise<number | void>;

/**
 * Runs an action over the run's Output and Factory, reports any error once (report-error.ts),
 * closes the factory. Resolves with the exit code: the action's own, else the error's, else 0.
 */
export async function runAction(
  action: (context: ActionContext) => ReturnType<AnyAction>,
  /** `json`: a failure is a JSON document on stdout too; `io` and `env` (in tests): the process's by default. */
  setting: { version: string; json: boolean; io?: IOStreams; env?: PlantsEnv },
): Promise<number> {
  const io = setting.io ?? processStreams();
  const env = setting.env ?? readEnv();
  const output = await Output.open(io, { color: env.color });
  const factory = new Factory(env, setting.version, io, output);
  try {
    const exitCode = (await action({ factory, output })) ?? ExitCode.ok;
    // A --jq error met where the action could not be told (a bulk add's batched results).
    return output.jqFailure === undefined ? exitCode : reportError(output.jqFailure, output, { json: false });
  } catch (error) {
    // With --jq a failure is said on stderr only: stdout holds what the program printed.
    return reportError(error, output, { json: setting.json && output.jq === undefined });
  } finally {
    await factory.close();
  }
}

/**
 * Runs an action on its parsed command line, as every route does. `--profile` chooses the
 * factory's config (so a profile is chosen per command, never by shared state). `--jq` implies `--json`, and
 * its program is compiled (jq loaded only then) before the action sends or reads anything.
 */
export async function runParsed(action: AnyAction, parsed: Parameters<AnyAction>[0], context: ActionContext) {
  const profile = parsed.flags.profile;
  if (typeof profile === 'string') context.factory.profileFlag = profile;
  const expression = parsed.flags.jq;
  if (typeof expression !== 'string') return action(parsed, context);
  const { JqFilter } = await import('./render/jq-filter.js');
  context.output.jq = await JqFilter.compile(expression);
  return action({ ...parsed, flags: { ...parsed.flags, json: true } }, context);
}

/**
 * The action a route table names (`delete-plant`): the export of src/cli/actions/delete-plant.ts
 * named after its file (`deletePlant`), as the build checked it against the command's declaration
 * (src/entry/build/route-table-from-oclif.ts).
 */
export async function actionNamed(name: string): Promise<AnyAction> {
  const module: Record<string, AnyAction> = await import(`./actions/${name}.js`);
  const action = module[actionExport(name)];
  if (action === undefined) throw new Error(`src/cli/actions/${name}.ts exports no ${actionExport(name)}`);
  return action;
}

/** The name an action module exports its action under: its file's name in camelCase. */
export function actionExport(module: string): string {
  return module.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * A command line after its command's words (`get 1 --json`), parsed against its route and run. A
 * refused line is a usage error (exit 2), never repeating a word that may be a token (none of
 * `commands`' words). An action that needs oclif (help, autocomplete) is `oclif`'s to run once
 * the line is read: without it (the single executable) the line is refused.
 */
export async function runCommandLine(
  commands: [string, CommandRoute][],
  route: CommandRoute,
  argv: readonly string[],
  setting: { version: string; oclif?: () => Promise<void> },
): Promise<void> {
  const end = argv.indexOf('--');
  // --json (of a command that has it) is honoured even when the line itself is refused.
  const json = route.flags.json !== undefined && (end === -1 ? argv : argv.slice(0, end)).includes('--json');
  let handOver: (() => Promise<void>) | undefined;
  const exitCode = await runAction(
    async (context) => {
      const parsed = parseArgv(route, argv);
      if ('misuse' in parsed) {
        const [{ usageError }, secrets] = await Promise.all([import('./help/usage-error.js'), import('./secrets.js')]);
        throw usageError(parsed.misuse, route, argv, secrets.knownWordsOf(commands));
      }
      if (parsed.action !== undefined) return runParsed(await actionNamed(parsed.action), parsed, context);
      if (setting.oclif === undefined) {
        throw new InvalidInputError(`\`plants ${route.id.replaceAll(':', ' ')}\` comes with the npm package only`, {
          hints: [
            'The single executable answers `plants --help` and `plants help COMMAND`; it has no completion scripts.',
          ],
        });
      }
      handOver = setting.oclif;
    },
    { version: setting.version, json },
  );
  if (exitCode !== ExitCode.ok) process.exitCode = exitCode;
  await handOver?.();
}
