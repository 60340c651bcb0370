import { loadHelpClass } from '@oclif/core';
import type { OclifContext } from '../base-command.js';

/** `plants help [COMMAND|TOPIC]`: a topic's text, else oclif's help, else the subject meant. */
export async function showHelp({ argv }: { argv: unknown[] }, { output, oclif }: OclifContext): Promise<void> {
  const words = argv.map(String);
  const { helpTopics } = await import('./help-topics.js');
  const topic = helpTopics[words.join(' ')];
  if (topic !== undefined) {
    output.data(topic.text);
    return;
  }
  if (words.length > 0) {
    const { unknownHelpSubject } = await import('./suggest.js');
    const unknown = unknownHelpSubject(words, oclif, Object.keys(helpTopics));
    if (unknown !== undefined) throw unknown;
  }
  const HelpClass = await loadHelpClass(oclif);
  await new HelpClass(oclif, oclif.pjson.oclif.helpOptions ?? {}).showHelp(words);
}
