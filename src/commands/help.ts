import { Args } from '@oclif/core';
import { PlantsCommand } from '../cli/base-command.js';
import { showHelp } from '../cli/help/show-help.js';

export class Help extends PlantsCommand {
  static override action = showHelp;
  static override summary = 'Show help for plants, a command, or a topic (environment, exit-codes).';
  static override strict = false;
  static override examples = [
    '<%= config.bin %> help add',
    '<%= config.bin %> help environment',
    '<%= config.bin %> help exit-codes',
  ];
  static override args = { topic: Args.string({ description: 'A command or a topic.', required: false }) };
}
