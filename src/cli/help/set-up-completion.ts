import type { OclifContext } from '../base-command.js';
import { ourShell } from './autocomplete.js';

export async function setUpCompletion(
  { args, flags }: { args: { shell?: string | undefined }; flags: { 'refresh-cache': boolean } },
  context: OclifContext,
): Promise<void> {
  const shell = await ourShell(args.shell, context, 'autocomplete');
  if (shell === undefined || flags['refresh-cache']) return;
  const { output, oclif } = context;
  if (shell === 'bash') output.data((await import('../../completion/bash.js')).bashSetupInstructions(oclif.bin));
  else output.data((await import('../../completion/fish.js')).fishSetupInstructions(oclif.bin));
}
