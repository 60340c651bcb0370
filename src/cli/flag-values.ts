/**
 * Flag values that need more than a string or a whole number: each read by one function, and
 * refused in one sentence. The oclif flag names its reader (flag-kinds.ts), and so does the route
 * table, from which the one parser calls the same function.
 */
export const flagValueReaders = {
  /** `--timeout`: seconds above 0, at most a day. */
  seconds: {
    read(text: string): number | undefined {
      const seconds = Number(text);
      return text.trim() !== '' && Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400 ? seconds : undefined;
    },
    refused: (name: string, input: string) =>
      `--${name} must be a number of seconds above 0 (got ${JSON.stringify(input)})`,
  },
  /** `--fault-seed`: 32 bits, as the fault generator keeps them. */
  faultSeed: {
    read(text: string): number | undefined {
      return /^\d{1,10}$/.test(text) && Number(text) <= 4_294_967_295 ? Number(text) : undefined;
    },
    refused: (name: string, input: string) =>
      `--${name} must be a whole number from 0 to 4294967295 (got ${JSON.stringify(input.slice(0, 40))})`,
  },
} satisfies Record<string, { read(text: string): unknown; refused(name: string, input: string): string }>;

export type FlagValueReader = keyof typeof flagValueReaders;
