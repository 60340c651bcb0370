import type { Parsed } from './command-run.js';
import { type AnyRun, runParsed } from './run-action.js';

/** The action of command `id` (src/cli/run/<id>.ts, `:` as `-`). */
export async function runOf(id: string): Promise<AnyRun> {
  const module: { run: AnyRun } = await import(`./run/${id.replaceAll(':', '-')}.js`);
  return module.run;
}

/** The fast route's half after parsing: the action of `parsed.id`, run by runParsed. */
export async function runCommand(parsed: Parsed<object> & { id: string }, version: string): Promise<void> {
  await runParsed(await runOf(parsed.id), parsed, version);
}
