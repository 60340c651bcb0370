import { Errors, Flags, type Interfaces } from '@oclif/core';
import { type FlagValueReader, flagValueReaders } from './flag-values.js';

/** The property of an oclif flag's parse function that names its reader, for the route table. */
export const READER = Symbol.for('plants.flagValueReader');

type ValueOf<K extends FlagValueReader> = NonNullable<ReturnType<(typeof flagValueReaders)[K]>>;

/**
 * An oclif option flag whose value is read by one of flagValueReaders; `refused` words the
 * usage error for a value it refuses.
 */
export function readerFlag<K extends FlagValueReader, D extends ValueOf<K> | undefined = undefined>(
  reader: K,
  refused: (input: string) => string,
  options: { summary: string; helpValue?: string; default?: D },
): Interfaces.OptionFlag<D extends undefined ? ValueOf<K> | undefined : ValueOf<K>> {
  const read = flagValueReaders[reader] as (text: string) => ValueOf<K> | undefined;
  const parse = async (input: string) => {
    const value = read(input);
    if (value === undefined) throw new Errors.CLIError(refused(input));
    return value;
  };
  Object.defineProperty(parse, READER, { value: reader });
  return Flags.custom<ValueOf<K>>({ ...options, parse, multiple: false } as never)() as never;
}
