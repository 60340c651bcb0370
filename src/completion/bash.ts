// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the script is bash, whose ${…} expansions are in plain strings on purpose.
import { type CompletionTree, flagWords, valuedFlagWords } from './command-tree.js';

/** A static bash completion script (a <TAB> never starts Node): written again after an upgrade. */
export function bashCompletionScript(tree: CompletionTree): string {
  const bin = tree.bin;
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const valued = valuedFlagWords(tree);
  const commandPaths = tree.commands.map((command) => command.words.join(' '));

  const valueCases: string[] = [];
  for (const command of tree.commands) {
    const path = command.words.join(' ');
    for (const flag of command.flags) {
      const pattern = flagWords(flag)
        .map((name) => bashQuote(`${path} ${name}`))
        .join('|');
      if (flag.options !== undefined) valueCases.push(`      ${pattern}) ${fn}_reply ${bashWords(flag.options)} ;;`);
      else if (flag.completesFiles) valueCases.push(`      ${pattern}) ${fn}_files ;;`);
    }
  }

  const flagCases = tree.commands.map((command) => {
    const flags = command.flags.flatMap(flagWords);
    return `      ${bashQuote(command.words.join(' '))}) ${fn}_reply ${bashWords([...flags, '--help'])} ;;`;
  });

  // What comes next after exactly these words: subcommands, or a command's first argument.
  const next = new Map<string, string[]>();
  for (const entry of [...tree.topics, ...tree.commands]) {
    const parent = entry.words.slice(0, -1).join(' ');
    const word = entry.words.at(-1) ?? '';
    next.set(parent, [...(next.get(parent) ?? []), word]);
  }
  for (const command of tree.commands) {
    if (command.argumentValues === undefined) continue;
    const path = command.words.join(' ');
    next.set(path, [...(next.get(path) ?? []), ...command.argumentValues]);
  }
  const nextCases = [...next].map(
    ([words, candidates]) => `    ${bashQuote(words)}) ${fn}_reply ${bashWords([...new Set(candidates)].sort())} ;;`,
  );

  const lines = [
    `# bash completion for ${bin}. Written by \`${bin} autocomplete script bash\`; write it again after`,
    `# upgrading ${bin}. Save it as ~/.local/share/bash-completion/completions/${bin}, or source it from ~/.bashrc.`,
    '',
    '# The candidates that start with what is typed ($cur of the caller), each as it is.',
    `${fn}_reply() {`,
    '  local word',
    '  COMPREPLY=()',
    '  for word in "$@"; do',
    '    [[ $word == "$cur"* ]] && COMPREPLY+=("$word")',
    '  done',
    '}',
    '',
    `${fn}_files() {`,
    '  compopt -o filenames 2>/dev/null',
    '  mapfile -t COMPREPLY < <(compgen -f -- "$cur")',
    '}',
    '',
    `${fn}() {`,
    '  local cur=${COMP_WORDS[COMP_CWORD]}',
    `  local valued=${bashQuote(` ${valued.join(' ')} `)}`,
    '  local -a words=()',
    '  local i word pending=',
    '  # The words typed so far that are neither flags nor flag values; pending: a flag waiting for its value.',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word=${COMP_WORDS[i]}',
    '    if [[ -n $pending ]]; then',
    '      [[ $word == = ]] || pending=',
    '      continue',
    '    fi',
    '    case $word in',
    '      --) ;;',
    '      -*=*) ;;',
    '      -*) [[ $valued == *" $word "* ]] && pending=$word ;;',
    '      *) words+=("$word") ;;',
    '    esac',
    '  done',
    '  [[ $cur == = ]] && cur=',
    '  # The longest command the words start with ("plant add").',
    '  local command= path=',
    '  for word in "${words[@]}"; do',
    '    path=${path:+$path }$word',
    '    case $path in',
    `      ${commandPaths.map(bashQuote).join('|')}) command=$path ;;`,
    '    esac',
    '  done',
    '  if [[ -n $pending ]]; then',
    '    case "$command $pending" in',
    ...valueCases,
    '      *) COMPREPLY=() ;;',
    '    esac',
    '    return 0',
    '  fi',
    '  if [[ $cur == -* ]]; then',
    '    case $command in',
    ...flagCases,
    `      *) ${fn}_reply --help --version ;;`,
    '    esac',
    '    return 0',
    '  fi',
    '  case "${words[*]}" in',
    ...nextCases,
    '    *) COMPREPLY=() ;;',
    '  esac',
    '  return 0',
    '}',
    '',
    `complete -F ${fn} ${bin}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A bash single-quoted string: nothing inside is special, and a quote is closed, escaped, reopened. */
export function bashQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function bashWords(words: readonly string[]): string {
  return words.map(bashQuote).join(' ');
}

export function bashSetupInstructions(bin: string): string {
  const folder = '${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions';
  return [
    `Setup instructions for ${bin.toUpperCase()} CLI autocomplete in bash`,
    '',
    '1) Run this in bash:',
    '',
    `  mkdir -p "${folder}" && ${bin} autocomplete script bash > "${folder}/${bin}"`,
    '',
    `   bash-completion loads it by itself the first time you complete ${bin}. Without the`,
    `   bash-completion package, add this line to ~/.bashrc instead:`,
    '',
    `  source "${folder}/${bin}"`,
    '',
    `   Run the first command again after upgrading ${bin}.`,
    '',
    '2) Start using autocomplete:',
    '',
    `  ${bin} <TAB>                  # Command completion`,
    `  ${bin} command --<TAB>        # Flag completion`,
    `  ${bin} serve --durability <TAB>   # Flag values, and files where a flag takes a path`,
    '',
  ].join('\n');
}
