/** `fields`: those at fault (empty: the whole value). Without zod: error reports check for it on every command. */
export class InvalidPlantError extends Error {
  readonly fields: readonly string[];
  constructor(message: string, options: { fields?: readonly string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InvalidPlantError';
    this.fields = options.fields ?? [];
  }
}
