/**
 * A NewPlant that breaks the schema; `fields` names the fields at fault (empty: the whole value).
 * What it means to a user (the CLI's exit 2, the server's 400) is for the layer that meets it.
 * A module of its own, without zod: the CLI's error reporting checks for it on every command.
 */
export class InvalidPlantError extends Error {
  readonly fields: readonly string[];
  constructor(message: string, options: { fields?: readonly string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InvalidPlantError';
    this.fields = options.fields ?? [];
  }
}
