import type { CommandRun, Parsed } from './command-run.js';
import { readEnv } from './env.js';
import { Factory } from './factory.js';
import { Output } from './render/output.js';
import { reportError } from './render/report-error.js';

type AnyRun = (parsed: Parsed<object>, context: Parameters<CommandRun<object>>[1]) => Promise<void>;

/** The action of command `id` (src/cli/run/<id>.ts, `:` as `-`). */
export async function runOf(id: string): Promise<AnyRun> {
  const module: { run: AnyRun } = await import(`./run/${id.replaceAll(':', '-')}.js`);
  return module.run;
}

/**
 * The fast route's half after parsing: what PlantsCommand does around an action (the factory,
 * the output, every error reported once with its exit code), without oclif.
 */
export async function runCommand(parsed: Parsed<object> & { id: string }, version: string): Promise<void> {
  const env = readEnv();
  const output = await Output.open({ stdout: process.stdout, stderr: process.stderr }, { color: env.color });
  const factory = new Factory({ env, version, output, shortLived: true });
  try {
    await (await runOf(parsed.id))(parsed, { factory, output });
  } catch (error) {
    process.exitCode = reportError(error, output, { json: (parsed.flags as { json?: unknown }).json === true });
  } finally {
    await factory.close();
  }
}
