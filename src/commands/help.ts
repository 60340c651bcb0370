import { Args, loadHelpClass } from '@oclif/core';
import { PlantsCommand } from '../cli/base-command.js';
import type { ActionContext } from '../cli/runner.js';

export class Help extends PlantsCommand {
  static override summary = 'Show help for plants, a command, or a topic (environment, exit-codes).';
  static override strict = false;
  static override examples = [
    '<%= config.bin %> help add',
    '<%= config.bin %> help environment',
    '<%= config.bin %> help exit-codes',
  ];
  static override args = { topic: Args.string({ description: 'A command or a topic.', required: false }) };

  protected override async act({ output }: ActionContext): Promise<void> {
    const { argv } = await this.parse(Help);
    const words = argv.map(String);
    const { helpTopics } = await import('../cli/help/help-topics.js');
    const topic = helpTopics[words.join(' ')];
    if (topic !== undefined) {
      output.data(topic.text);
      return;
    }
    if (words.length > 0) {
      const { unknownHelpSubject } = await import('../cli/help/suggest.js');
      const unknown = unknownHelpSubject(words, this.config, Object.keys(helpTopics));
      if (unknown !== undefined) throw unknown;
    }
    const HelpClass = await loadHelpClass(this.config);
    await new HelpClass(this.config, this.config.pjson.oclif.helpOptions ?? {}).showHelp(words);
  }
}
