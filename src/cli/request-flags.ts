import { Errors, Flags } from '@oclif/core';
import { DEFAULT_TIMEOUT_SECONDS, parseTimeoutSeconds } from './defaults.js';

/** Flags of commands that send requests. */
export const requestFlags = {
  timeout: Flags.custom<number>({
    summary: 'Give up on a request after this many seconds.',
    helpValue: 'SECONDS',
    default: DEFAULT_TIMEOUT_SECONDS,
    parse: async (input) => {
      const seconds = parseTimeoutSeconds(input);
      if (seconds === undefined) {
        throw new Errors.CLIError(`--timeout must be a number of seconds above 0 (got ${JSON.stringify(input)})`);
      }
      return seconds;
    },
  })(),
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
