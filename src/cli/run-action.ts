import { ExitCode } from '../errors.js';
import type { CommandRun, Parsed, RunContext } from './command-run.js';
import { type PlantsEnv, readEnv } from './env.js';
import { Factory } from './factory.js';
import { type IOStreams, processStreams } from './io-streams.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

// Running one command's action, without oclif and without the table of every command
// (run-command.ts): the single executable bundles this with one command's action alone.

/** A command's action (src/cli/run/<id>.ts), as run-command.ts and the single executable call it. */
export type AnyRun = (
  parsed: Parsed<object>,
  context: Parameters<CommandRun<object>>[1],
) => ReturnType<CommandRun<object>>;

/** What a run is given from outside: its streams, its environment, plants' version. */
export interface RunSetting {
  io: IOStreams;
  env: PlantsEnv;
  version: string;
  /** `--json`: a failure is a JSON document on stdout too. */
  json: boolean;
}

/**
 * What PlantsCommand does around an action, without oclif: the output and the factory over the
 * run's streams, every error reported once, the factory closed. Resolves with the exit code
 * (the action's own, else the error's, else 0); it is not made the process's here.
 */
export async function runAction(
  action: (context: RunContext) => ReturnType<CommandRun<object>>,
  setting: RunSetting,
): Promise<number> {
  const { io, env } = setting;
  const output = await Output.open(io, { color: env.color });
  const factory = new Factory({ env, version: setting.version, io, output });
  try {
    return (await action({ factory, output })) ?? ExitCode.ok;
  } catch (error) {
    return reportError(error, output, { json: setting.json });
  } finally {
    await factory.close();
  }
}

/** The fast route's half after parsing, for an action at hand: runAction over the process's streams and environment. */
export async function runParsed(run: AnyRun, parsed: Parsed<object> & { id: string }, version: string): Promise<void> {
  const exitCode = await runAction(async (context) => run(parsed, context), {
    io: processStreams(),
    env: readEnv(),
    version,
    json: (parsed.flags as { json?: unknown }).json === true,
  });
  if (exitCode !== ExitCode.ok) process.exitCode = exitCode;
}
