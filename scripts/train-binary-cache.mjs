// Run by scripts/build-binary.mjs with the binary's own Node (the same V8, the same flags):
//   node scripts/train-binary-cache.mjs BUNDLE.cjs CACHE-OUT BASE-URL TOKEN VERSION [COMMAND]
// compiles a commands bundle (of every command, or of COMMAND alone) as the binary does
// (dist/entry/commands-bundle.js), runs it through the command lines users run most against the
// store at BASE-URL — those of COMMAND only, when given, else all of them — then writes the code
// V8 compiled meanwhile: that bundle's code cache. Config goes where PLANTS_CONFIG_DIR says (the build gives a
// temporary folder; a token is stored there by `login` first).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chunkAsset } from '../dist/entry/binary-assets.js';
import { compileCommands } from '../dist/entry/commands-bundle.js';
import { findRoute, parseArgv } from '../dist/entry/parse-argv.js';

const [bundleFile, cacheFile, url, token, version, only] = process.argv.slice(2);
const table = JSON.parse(readFileSync('dist/entry/routes.json', 'utf8'));
// The chunks a bundle leaves out sit beside it, for a line that needs one (the binary compiles
// them without a code cache, and so does this).
const { exports, createCachedData } = compileCommands(readFileSync(bundleFile, 'utf8'), undefined, (name) =>
  readFileSync(path.join(path.dirname(bundleFile), chunkAsset(name)), 'utf8'),
);
const store = ['--base-url', url];
const lines = [
  ['login', '--token', token, ...store],
  ['add', '--id', '1', '--name', 'Fern', '--tag', 'herb', ...store],
  ['add', '--id', '9223372036854775807', '--name', 'Oak', '--json', ...store],
  ['add', '--id', '1', '--name', 'Fern again', ...store],
  ['add', '--id', 'not-a-number', '--name', 'x', ...store],
  ['get', '1', ...store],
  ['get', '9223372036854775807', '--json', ...store],
  ['list', '--json', ...store],
  ['list', ...store],
  ['delete', '1', '--yes', ...store],
  ['status', ...store],
  ['logout', ...store],
];
const chosen = only === undefined ? lines.filter(([id]) => id !== 'logout') : lines.filter(([id]) => id === only);
if (chosen.length === 0) throw new Error(`no command lines to train ${only} with`);
for (const argv of chosen) {
  const found = findRoute(table, argv);
  const parsed = found && parseArgv(found.route, found.rest);
  if (parsed === undefined) throw new Error(`the route table does not take: plants ${argv.join(' ')}`);
  await exports.runCommand(parsed, version);
}
process.exitCode = 0;
writeFileSync(cacheFile, createCachedData());
