import { type CompletionCommand, type CompletionFlag, type CompletionTree, valuedFlagWords } from './command-tree.js';

/** A static fish completion script (a <TAB> never starts Node): written again after an upgrade. */
export function fishCompletionScript(tree: CompletionTree): string {
  const bin = tree.bin;
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const valued = valuedFlagWords(tree);
  const lines = [
    `# fish completion for ${bin}. Written by \`${bin} autocomplete script fish\`; write it again after`,
    `# upgrading ${bin}. Save it as $__fish_config_dir/completions/${bin}.fish.`,
    '',
    '# The words typed so far that are neither flags nor flag values: the command, then its arguments.',
    `function ${fn}_words`,
    `    set -l valued ${valued.map(fishQuote).join(' ')}`,
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    set -l skip 0',
    '    for token in $tokens',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $token',
    "            case '--'",
    "            case '-*=*'",
    "            case '-*'",
    '                contains -- $token $valued; and set skip 1',
    "            case '*'",
    '                echo $token',
    '        end',
    '    end',
    'end',
    '',
    '# True when the words typed so far are exactly the arguments: what comes next is completed.',
    `function ${fn}_at`,
    `    set -l words (${fn}_words)`,
    '    test "$words" = "$argv"',
    'end',
    '',
    '# The longest command the words typed so far start with, as one string ("plant add").',
    `function ${fn}_command`,
    `    set -l commands ${tree.commands.map((command) => fishQuote(command.words.join(' '))).join(' ')}`,
    '    set -l path',
    '    set -l found',
    `    for word in (${fn}_words)`,
    '        set -a path $word',
    '        contains -- "$path" $commands; and set found "$path"',
    '    end',
    '    echo $found',
    'end',
    '',
    `# Files only where a flag takes a path.`,
    `complete -c ${bin} -f`,
    `complete -c ${bin} -l help -d 'Show help'`,
    `complete -c ${bin} -n ${fn}_at -l version -d 'Show the version'`,
    '',
  ];
  for (const entry of [...tree.topics, ...tree.commands]) {
    const parent = entry.words.slice(0, -1);
    const word = entry.words.at(-1) ?? '';
    lines.push(
      `complete -c ${bin} -n ${fishQuote([`${fn}_at`, ...parent.map(fishQuote)].join(' '))} -a ${fishWords([word])} -d ${fishQuote(entry.summary)}`,
    );
  }
  for (const command of tree.commands) {
    lines.push('', ...commandLines(bin, fn, command));
  }
  return `${lines.join('\n')}\n`;
}

function commandLines(bin: string, fn: string, command: CompletionCommand): string[] {
  const path = command.words.join(' ');
  const inCommand = fishQuote(`test (${fn}_command) = ${fishQuote(path)}`);
  const lines = command.flags.map((flag) => `complete -c ${bin} -n ${inCommand}${flagOptions(flag)}`);
  if (command.argumentValues !== undefined) {
    lines.push(
      `complete -c ${bin} -n ${fishQuote([`${fn}_at`, ...command.words.map(fishQuote)].join(' '))} -a ${fishWords(command.argumentValues)}`,
    );
  }
  return lines;
}

function flagOptions(flag: CompletionFlag): string {
  let options = ` -l ${flag.name}`;
  if (flag.char !== undefined) options += ` -s ${flag.char}`;
  // -r: it needs a value; -F: files may be that value; -x (-r -f): anything but a file.
  if (flag.completesFiles) options += ' -r -F';
  else if (flag.takesValue) options += ' -x';
  if (flag.options !== undefined) options += ` -a ${fishWords(flag.options)}`;
  if (flag.summary !== '') options += ` -d ${fishQuote(flag.summary)}`;
  return options;
}

/** A fish single-quoted string: inside, only \ and ' are special. */
export function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** An argument for `complete -a`, which fish evaluates as a list: each word quoted, then the whole. */
function fishWords(words: readonly string[]): string {
  return fishQuote(words.map(fishQuote).join(' '));
}

export function fishSetupInstructions(bin: string): string {
  return [
    `Setup instructions for ${bin.toUpperCase()} CLI autocomplete in fish`,
    '',
    '1) Run this in fish:',
    '',
    `  mkdir -p $__fish_config_dir/completions; and ${bin} autocomplete script fish > $__fish_config_dir/completions/${bin}.fish`,
    '',
    `   fish loads it by itself the next time you complete ${bin}. Run it again after upgrading ${bin}.`,
    '',
    '2) Start using autocomplete:',
    '',
    `  ${bin} <TAB>                  # Command completion`,
    `  ${bin} command --<TAB>        # Flag completion`,
    '',
  ].join('\n');
}
