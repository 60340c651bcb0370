import type { OclifContext } from '../base-command.js';
import { ourShell } from './autocomplete.js';

export async function printCompletionScript(
  { args }: { args: { shell?: string | undefined } },
  context: OclifContext,
): Promise<void> {
  const shell = await ourShell(args.shell, context, 'autocomplete:script');
  if (shell === undefined) return;
  const [{ completionTree }, { helpTopics }] = await Promise.all([
    import('../../completion/command-tree.js'),
    import('./help-topics.js'),
  ]);
  const tree = completionTree(context.oclif, Object.keys(helpTopics));
  const script =
    shell === 'bash'
      ? (await import('../../completion/bash.js')).bashCompletionScript(tree)
      : (await import('../../completion/fish.js')).fishCompletionScript(tree);
  context.output.data(script.trimEnd());
}
