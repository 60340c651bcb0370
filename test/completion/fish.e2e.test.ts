import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionTree } from '../../src/completion/command-tree.js';
import { fishCompletionScript, fishQuote } from '../../src/completion/fish.js';
import { makeTempDir } from '../helpers/cli.js';
import { completeInFish, shellTestsRun } from '../helpers/shells.js';

// Text that would do harm if the script quoted it badly: fish would run it, or fail to parse.
const tricky = `it's a \\ back'slash; $(echo run) (echo run) "quoted" * ~`;

const tree: CompletionTree = {
  bin: 'plants',
  topics: [{ words: ['plant'], summary: 'Topic' }],
  commands: [
    {
      words: ['add'],
      summary: tricky,
      flags: [
        { name: 'id', summary: 'Id', takesValue: true, completesFiles: false },
        { name: 'mode', summary: tricky, takesValue: true, options: ["a'b", 'c'], completesFiles: false },
        { name: 'yes', char: 'y', summary: '', takesValue: false, completesFiles: false },
      ],
      argumentValues: ['first', 'second'],
    },
    { words: ['plant', 'add'], summary: 'Alias', flags: [] },
  ],
};

describe('fishQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['a\\b', "'a\\\\b'"],
    ['$HOME (x)', "'$HOME (x)'"],
  ])('quotes %j as %s', (text, quoted) => {
    expect(fishQuote(text)).toBe(quoted);
  });
});

describe.runIf(shellTestsRun('fish'))('fishCompletionScript in fish', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let script: string;
  beforeAll(() => {
    temp = makeTempDir();
    script = path.join(temp.dir, 'plants.fish');
    writeFileSync(script, fishCompletionScript(tree));
  });
  afterAll(() => temp.remove());

  it('shows descriptions as written, never running what is in them', () => {
    expect(completeInFish(script, 'plants a')).toEqual([`add\t${tricky}`]);
    expect(completeInFish(script, 'plants add --m')).toEqual([`--mode\t${tricky}`]);
  });

  it('offers values with quotes in them as values', () => {
    expect(completeInFish(script, 'plants add --mode ').map((entry) => entry.split('\t')[0])).toEqual(["a'b", 'c']);
  });

  it('skips the value of a flag that takes one, and not the word after a switch', () => {
    const offered = (line: string) => completeInFish(script, line).map((entry) => entry.split('\t')[0]);
    // `--id 5` is a flag and its value: the argument comes next. So also with `--id=5` and `-y`.
    expect(offered('plants add --id 5 ')).toEqual(['first', 'second']);
    expect(offered('plants add --id=5 -y ')).toEqual(['first', 'second']);
    // After the argument, nothing more is offered for it.
    expect(offered('plants add first ')).toEqual([]);
    // After a switch the next word is a word of the command line: `plant` leads to its commands.
    expect(offered('plants --yes plant ')).toEqual(['add']);
  });
});
