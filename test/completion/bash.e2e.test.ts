import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashCompletionScript, bashQuote } from '../../src/completion/bash.js';
import type { CompletionTree } from '../../src/completion/command-tree.js';
import { makeTempDir } from '../helpers/cli.js';
import { completeInBash } from '../helpers/shells.js';

// Values that would do harm if the script quoted them badly: bash would run them, or split them.
const tricky = `it's $(touch ran) \`touch ran\` "q" * ~`;

const tree: CompletionTree = {
  bin: 'plants',
  topics: [{ words: ['plant'], summary: 'Topic' }],
  commands: [
    {
      words: ['add'],
      summary: 'Add',
      flags: [
        { name: 'id', summary: 'Id', takesValue: true, completesFiles: false },
        { name: 'mode', summary: 'Mode', takesValue: true, options: [tricky, 'plain'], completesFiles: false },
        { name: 'yes', char: 'y', summary: '', takesValue: false, completesFiles: false },
      ],
      argumentValues: ['first', 'second'],
    },
    { words: ['plant', 'add'], summary: 'Alias', flags: [] },
  ],
};

describe('bashQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it'\\''s'"],
    ['$HOME `x`', "'$HOME `x`'"],
  ])('quotes %j as %s', (text, quoted) => {
    expect(bashQuote(text)).toBe(quoted);
  });
});

describe('bashCompletionScript in bash', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let script: string;
  beforeAll(() => {
    temp = makeTempDir();
    script = path.join(temp.dir, 'plants.bash');
    writeFileSync(script, bashCompletionScript(tree));
  });
  afterAll(() => temp.remove());

  it('offers values with quotes and expansions in them as they are, running nothing', () => {
    expect(completeInBash(script, 'plants add --mode ')).toEqual([tricky, 'plain']);
    expect(completeInBash(script, 'plants add --mode=')).toEqual([tricky, 'plain']);
    expect(completeInBash(script, 'plants add --mode=p')).toEqual(['plain']);
    expect(completeInBash(script, 'plants add --mode=p --i')).toEqual(['--id']);
  });

  it('skips the value of a flag that takes one, and not the word after a switch', () => {
    expect(completeInBash(script, 'plants add --id 5 ')).toEqual(['first', 'second']);
    expect(completeInBash(script, 'plants add --yes f')).toEqual(['first']);
    expect(completeInBash(script, 'plants add -y ')).toEqual(['first', 'second']);
  });

  it('offers topics and their commands', () => {
    expect(completeInBash(script, 'plants ')).toEqual(['add', 'plant']);
    expect(completeInBash(script, 'plants plant ')).toEqual(['add']);
    expect(completeInBash(script, 'plants plant add --')).toEqual(['--help']);
  });
});
