/**
 * Build step (`npm run bundle`): `plants --help` as oclif renders it for an 80-column terminal or
 * a pipe, written to dist/fast/root-help.json for the fast path (root-help.ts), which answers
 * `plants --help` with it instead of loading oclif (two thirds of that command's start-up). It is
 * oclif's own output, by construction; the hash of what oclif renders it from (the manifest, the
 * autocomplete plugin's version) goes with it, so that a manifest regenerated after the build
 * sends `--help` back to oclif rather than to a stale text.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Config, loadHelpClass } from '@oclif/core';
import { ROOT_HELP_WIDTH, type RootHelp, rootHelpInputsHash } from './root-help.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const config = await Config.load({ root });
const Help = await loadHelpClass(config);
const options = config.pjson.oclif.helpOptions ?? config.pjson.helpOptions;
// As oclif's formatter takes it at run time: the terminal's width, unless helpOptions say.
const help = new Help(config, { maxWidth: ROOT_HELP_WIDTH, ...options });
const chunks: string[] = [];
const write = process.stdout.write;
process.stdout.write = ((chunk: string | Uint8Array) => {
  chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  return true;
}) as typeof process.stdout.write;
try {
  await help.showHelp(['--help']);
} finally {
  process.stdout.write = write;
}
const text = chunks.join('');
// The VERSION line is the running Node's: kept out, and put back at run time.
const parts = text.split(config.userAgent);
if (parts.length !== 2) throw new Error(`the root help holds the user agent ${parts.length - 1} times, not once`);
const snapshot: RootHelp = {
  inputs: rootHelpInputsHash(new URL('../../../', import.meta.url)),
  before: parts[0] ?? '',
  after: parts[1] ?? '',
};
writeFileSync(new URL('../../../dist/fast/root-help.json', import.meta.url), `${JSON.stringify(snapshot)}\n`);
