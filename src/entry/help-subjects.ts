/**
 * The pages a command line asks for, the first found answering (`plants add --id 1 --help`: `add`;
 * `plants help add`: `help add`, a help topic, else `add`; `plants`: the root), or undefined when
 * it asks for none.
 */
export function helpSubjects(argv: readonly string[]): string[] | undefined {
  if (argv.length === 0) return [''];
  if (argv[0] === 'help') {
    // `help add --help` asks for the same page as `help add`.
    const words = argv.slice(1).filter((word) => word !== '--help' && word !== '-h');
    if (words.some((word) => word.startsWith('-'))) return undefined;
    return words.length === 0 ? [''] : [['help', ...words].join(' '), words.join(' ')];
  }
  const end = argv.indexOf('--');
  const before = end === -1 ? argv : argv.slice(0, end);
  if (!before.includes('--help') && !before.includes('-h')) return undefined;
  const words: string[] = [];
  for (const word of before) {
    if (word.startsWith('-')) break;
    words.push(word);
  }
  return [words.join(' ')];
}
