import { Errors, Flags } from '@oclif/core';

/** Flags of commands that send requests. */
export const requestFlags = {
  timeout: Flags.custom<number>({
    summary: 'Give up on a request after this many seconds.',
    helpValue: 'SECONDS',
    default: 30,
    parse: async (input) => {
      const seconds = Number(input);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
        throw new Errors.CLIError(`--timeout must be a number of seconds above 0 (got ${JSON.stringify(input)})`);
      }
      return seconds;
    },
  })(),
  insecure: Flags.boolean({
    summary: 'Allow sending the token over plain http to a host that is not this machine.',
    default: false,
  }),
};
