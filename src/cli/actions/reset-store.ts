import { InvalidInputError } from '../../errors.js';
import type { JsonOptions, RequestOptions } from '../options.js';
import type { ActionContext } from '../runner.js';
import { printPlantList } from './list-plants.js';

/** `plants reset`: asks first on a terminal unless `yes`, elsewhere needs it; then prints the store as `list --all`. */
export async function resetStore(
  { flags }: { flags: RequestOptions & JsonOptions & { yes: boolean } },
  { factory, output }: ActionContext,
): Promise<void> {
  const client = await factory.plantClient(flags);
  const { io } = factory;
  if (!flags.yes) {
    if (!io.canPrompt()) {
      throw new InvalidInputError(
        'plants reset replaces every plant in the store: give --yes to reset without asking',
        { hints: ['Nothing was sent.'] },
      );
    }
    const base = (await factory.baseUrl(flags['base-url'])).value;
    const { confirm } = await import('../input/prompt.js');
    const store = `${base.origin}${base.pathname.replace(/\/$/, '')}`;
    if (!(await confirm(`Reset the store at ${store} to its seed? Every plant in it is replaced. [y/N] `, io))) {
      // Like `rm -i`: answering no is not a failure.
      output.info('Not reset.');
      return;
    }
  }
  const first = await client.reset();
  const shown = await printPlantList(client, output, {
    limit: 100,
    after: undefined,
    all: true,
    json: flags.json,
    first,
  });
  const holds = shown === 0 ? 'no plants' : shown === 1 ? '1 plant' : `${shown} plants`;
  output.info(`${output.errorColor.green('✓')} Reset: the store holds ${holds} now`);
}
