import { Flags } from '@oclif/core';
import { DEFAULT_TIMEOUT_SECONDS } from './defaults.js';
import { readerFlag } from './flag-kinds.js';

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
