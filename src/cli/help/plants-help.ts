import { Help } from '@oclif/core';
import { helpTopics } from './help-topics.js';

/** oclif's help, with every topic at the end of the root help: oclif leaves out `plant`, whose commands are aliases. */
export default class PlantsHelp extends Help {
  protected override async showRootHelp(): Promise<void> {
    await super.showRootHelp();
    const commandTopics = this.config.topics
      .filter((topic) => !topic.hidden && !topic.name.includes(':'))
      .filter((topic) => this.config.findCommand(topic.name) === undefined)
      .map((topic): [string, string] => [topic.name, topic.description ?? '']);
    const textTopics = Object.entries(helpTopics).map(([name, { summary }]): [string, string] => [name, summary]);
    this.log('TOPICS');
    for (const [name, summary] of [...commandTopics, ...textTopics]) this.log(`  ${name.padEnd(14)}${summary}`);
    this.log('\nRun `plants help TOPIC` for one of them.');
  }
}
