import type { Interfaces } from '@oclif/core';
import type { Factory } from './factory.js';
import type { Output } from './render/output.js';

/** What a command's action is given besides its flags and arguments. */
export interface RunContext {
  factory: Factory;
  output: Output;
}

/** A command class's flags and arguments as its parse gives them (oclif's, or the fast route's). */
export interface Parsed<C extends { flags?: Interfaces.FlagInput; args?: Interfaces.ArgInput }> {
  flags: Interfaces.InferredFlags<C['flags']>;
  args: Interfaces.InferredArgs<NonNullable<C['args']>>;
}

/**
 * What `plants <id>` does once parsed: src/cli/run/<id>.ts exports it as `run` (`autocomplete:script`
 * as autocomplete-script.ts). Both routes call it: PlantsCommand#run after oclif's parse, and the
 * fast route after its own. It resolves with an exit code when it ends in one without throwing
 * (a bulk add with failures, `status` without a token); the edges make it the process's.
 */
export type CommandRun<C extends { flags?: Interfaces.FlagInput; args?: Interfaces.ArgInput }> = (
  parsed: Parsed<C>,
  context: RunContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: most actions end in no exit code of their own and return nothing.
) => Promise<number | void>;

/** The request flags every store command shares, as the factory takes them. */
export function clientRequest(flags: {
  'base-url'?: string | undefined;
  'ca-cert'?: string | undefined;
  insecure: boolean;
  timeout: number;
}) {
  return {
    flagBaseUrl: flags['base-url'],
    insecure: flags.insecure,
    timeoutSeconds: flags.timeout,
    caCert: flags['ca-cert'],
  };
}
