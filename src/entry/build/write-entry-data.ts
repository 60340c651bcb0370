/** Build step (`npm run bundle`): dist/entry/routes.json and help.json, what the entry reads instead of oclif. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Config, loadHelpClass } from '@oclif/core';
import { helpTopics } from '../../cli/help/help-topics.js';
import { HELP_WIDTH, type HelpPages, helpInputsHash } from '../help-pages.js';
import { routeTableFrom } from './route-table-from-oclif.js';

const packageRoot = new URL('../../../', import.meta.url);
const config = await Config.load({ root: fileURLToPath(packageRoot) });

/** What oclif's help prints for these words, from a fresh Config: rendering one page changes the next. */
async function rendered(argv: string[]): Promise<string> {
  const fresh = await Config.load({ root: fileURLToPath(packageRoot) });
  const Help = await loadHelpClass(fresh);
  const options = fresh.pjson.oclif.helpOptions ?? fresh.pjson.helpOptions;
  const help = new Help(fresh, { maxWidth: HELP_WIDTH, ...options });
  const chunks: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  try {
    await help.showHelp(argv);
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

const pages: Record<string, string> = {};
const subjects = [
  ...config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]),
  ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name),
];
for (const id of new Set(subjects)) pages[id.split(':').join(' ')] = await rendered([...id.split(':'), '--help']);
for (const [name, topic] of Object.entries(helpTopics)) pages[`help ${name}`] = `${topic.text}\n`;

const root = (await rendered(['--help'])).split(config.userAgent);
if (root.length !== 2) throw new Error(`the root help holds the user agent ${root.length - 1} times, not once`);
const snapshot: HelpPages = {
  inputs: await helpInputsHash(packageRoot),
  pages,
  root: { before: root[0] ?? '', after: root[1] ?? '' },
};
writeFileSync(new URL('dist/entry/help.json', packageRoot), `${JSON.stringify(snapshot)}\n`);

writeFileSync(new URL('dist/entry/routes.json', packageRoot), `${JSON.stringify(await routeTableFrom(config))}\n`);
