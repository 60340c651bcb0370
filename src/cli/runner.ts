import type { Interfaces } from '@oclif/core';
import { ExitCode } from '../errors.js';
import { type PlantsEnv, readEnv } from './env.js';
import { Factory } from './factory.js';
import { type IOStreams, processStreams } from './io-streams.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

// The one runner: every route to a command (oclif's, through PlantsCommand; the fast route of
// src/entry/main.ts; the single executable's) runs its action through runAction.

/** What an action is given besides its flags and arguments. */
export interface ActionContext {
  factory: Factory;
  output: Output;
}

/**
 * What `plants <command>` does once parsed: a function of src/cli/actions/, which the command's
 * declaration names (`static action`), given the command's flags and arguments and its context.
 * It resolves with an exit code when it ends in one without throwing (a bulk add with failures,
 * `status` without a token). Typed here without its command's flags, which the action's own
 * signature has (`Parsed<typeof Add>`): the route table knows actions by name only.
 */
export type AnyAction = (
  parsed: { flags: Record<string, unknown>; args: Record<string, unknown> },
  context: ActionContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: most actions end in no exit code of their own and return nothing.
) => Promise<number | void>;

/** A command class's flags and arguments as its parse gives them (oclif's, or the fast route's). */
export interface Parsed<C extends { flags?: Interfaces.FlagInput; args?: Interfaces.ArgInput }> {
  flags: Interfaces.InferredFlags<C['flags']>;
  args: Interfaces.InferredArgs<NonNullable<C['args']>>;
}

/** What a run is given from outside: plants' version, and (in tests) its streams and environment. */
export interface RunSetting {
  version: string;
  /** `--json`: a failure is a JSON document on stdout too. */
  json: boolean;
  /** Default: the process's. */
  io?: IOStreams;
  /** Default: the process's (readEnv). */
  env?: PlantsEnv;
}

/**
 * Runs an action: opens the output and builds the factory over the run's streams, reports any
 * error once (its message, and with --json its document; report-error.ts chooses the exit code),
 * closes the factory. Resolves with the exit code (the action's own, else the error's, else 0);
 * the route makes it the process's.
 */
export async function runAction(
  action: (context: ActionContext) => ReturnType<AnyAction>,
  setting: RunSetting,
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
 * The fast route's and the single executable's half after parsing: the action of the parsed
 * command line, run over the process's streams; its exit code made the process's.
 */
export async function runNamedAction(
  parsed: { action: string; flags: Record<string, unknown>; args: Record<string, unknown> },
  version: string,
): Promise<void> {
  const action = await actionNamed(parsed.action);
  const exitCode = await runAction((context) => runParsed(action, parsed, context), {
    version,
    json: parsed.flags.json === true,
  });
  if (exitCode !== ExitCode.ok) process.exitCode = exitCode;
}
