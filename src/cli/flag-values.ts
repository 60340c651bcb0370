/** Flag values that need more than a string or a whole number, read by oclif and the one parser alike. */
export const flagValueReaders = {
  seconds: {
    read(text: string): number | undefined {
      const seconds = Number(text);
      return text.trim() !== '' && Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400 ? seconds : undefined;
    },
    refused: (name: string, input: string) =>
      `--${name} must be a number of seconds above 0 (got ${JSON.stringify(input)})`,
  },
  /** 32 bits, as the fault generator keeps them. */
  faultSeed: {
    read(text: string): number | undefined {
      return /^\d{1,10}$/.test(text) && Number(text) <= 4_294_967_295 ? Number(text) : undefined;
    },
    refused: (name: string, input: string) =>
      `--${name} must be a whole number from 0 to 4294967295 (got ${JSON.stringify(input.slice(0, 40))})`,
  },
} satisfies Record<string, { read(text: string): unknown; refused(name: string, input: string): string }>;

export type FlagValueReader = keyof typeof flagValueReaders;
