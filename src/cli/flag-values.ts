/**
 * Flag values that need more than oclif's own kinds (string, boolean, integer): each read by one
 * function, which both routes call. The oclif flag wraps it (flag-kinds.ts, with its message);
 * the route table names it, so the fast route calls the same function without loading oclif.
 * Each returns undefined for a value it refuses.
 */
export const flagValueReaders = {
  /** `--timeout`: seconds above 0, at most a day. */
  seconds(text: string): number | undefined {
    const seconds = Number(text);
    return text.trim() !== '' && Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400 ? seconds : undefined;
  },
  /** `--fault-seed`: 32 bits, as the fault generator keeps them. */
  faultSeed(text: string): number | undefined {
    return /^\d{1,10}$/.test(text) && Number(text) <= 4_294_967_295 ? Number(text) : undefined;
  },
} satisfies Record<string, (text: string) => unknown>;

export type FlagValueReader = keyof typeof flagValueReaders;
