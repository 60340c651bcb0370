import { Flags, type Interfaces } from '@oclif/core';
import { type FlagValueReader, flagValueReaders } from './flag-values.js';

/** The property of an oclif flag's parse function that names its reader, for the route table. */
export const READER = Symbol.for('plants.flagValueReader');

type ValueOf<K extends FlagValueReader> = NonNullable<ReturnType<(typeof flagValueReaders)[K]['read']>>;

/** An oclif option flag whose value is read by one of flagValueReaders. */
export function readerFlag<K extends FlagValueReader, D extends ValueOf<K> | undefined = undefined>(
  reader: K,
  options: { summary: string; helpValue?: string; default?: D },
): Interfaces.OptionFlag<D extends undefined ? ValueOf<K> | undefined : ValueOf<K>> {
  const read = flagValueReaders[reader].read as (text: string) => ValueOf<K> | undefined;
  const parse = async (input: string) => read(input);
  Object.defineProperty(parse, READER, { value: reader });
  return Flags.custom<ValueOf<K>>({ ...options, parse, multiple: false } as never)() as never;
}
