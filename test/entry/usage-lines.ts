/**
 * Command lines every distribution must answer as the npm package answered them at 61028b4, before
 * the one parser (stdout, stderr and exit code, byte for byte): usage errors of every kind, words
 * that are no command, and a value an action refuses. Run through the npm package
 * (test/entry/main.node-e2e.test.ts) and the single executable (test/binary/binary.e2e.test.ts),
 * with nothing listening at the store URL: none of them may reach it.
 */
export const usageLines: { argv: string[]; code: number; stderr: string; stdout: string }[] = [
  {
    argv: ['add', '--nmae', 'Fern'],
    code: 2,
    stderr: 'plants: `plants add` has no flag --nmae\n  Did you mean `--name`?\n  See `plants add --help`.\n',
    stdout: '',
  },
  {
    argv: ['get'],
    code: 2,
    stderr:
      'plants: `plants get` needs ID, the id of the plant (a 64-bit integer)\n  Usage: plants get ID\n  See `plants get --help`.\n',
    stdout: '',
  },
  {
    argv: ['list', '--limit', 'abc'],
    code: 2,
    stderr: 'plants: --limit must be a whole number from 1 to 1000 (got "abc")\n  See `plants list --help`.\n',
    stdout: '',
  },
  {
    argv: ['frobnicate'],
    code: 127,
    stderr:
      'plants: that is not a plants command (the word is not repeated here).\n  Run `plants help` for a list of commands.\n',
    stdout: '',
  },
  {
    argv: ['add', '--id', '12x', '--name', 'A'],
    code: 2,
    stderr:
      'plants: invalid id: must be a whole number from -9223372036854775808 to 9223372036854775807, written as JSON writes it (digits and a leading - if negative; no spaces, no +, no leading zeros) (got "12x")\n',
    stdout: '',
  },
  {
    argv: ['login', '--token'],
    code: 2,
    stderr: 'plants: --token needs a value: TOKEN\n  See `plants login --help`.\n',
    stdout: '',
  },
  {
    argv: ['get', '--json'],
    code: 2,
    stderr:
      'plants: `plants get` needs ID, the id of the plant (a 64-bit integer)\n  Usage: plants get ID\n  See `plants get --help`.\n',
    stdout: '{"error":0,"message":"`plants get` needs ID, the id of the plant (a 64-bit integer)"}\n',
  },
  {
    argv: ['add', '--id', '1', '--id', '2', '--name', 'x'],
    code: 2,
    stderr: 'plants: Flag --id can only be specified once\n  See `plants add --help`.\n',
    stdout: '',
  },
  {
    argv: ['add', '--id', '1', '--name', 'Boston', 'Fern'],
    code: 2,
    stderr:
      'plants: unexpected argument: --name takes one word as its value, so a value with spaces goes in quotes\n  Quote it: --name "Boston Fern"\n  See `plants add --help`.\n',
    stdout: '',
  },
  {
    argv: ['serve', '--db', 'x.db', '--memory', '--database', 'y'],
    code: 2,
    stderr:
      'plants: --memory and --database cannot be used together; --db and --memory cannot be used together\n  See `plants serve --help`.\n',
    stdout: '',
  },
  {
    argv: ['serve', '--durability', 'fast'],
    code: 2,
    stderr: 'plants: --durability must be full or normal (got "fast")\n  See `plants serve --help`.\n',
    stdout: '',
  },
  {
    argv: ['serve', '--metrics-token', 'x'],
    code: 2,
    stderr: 'plants: --metrics-token needs --metrics as well\n  See `plants serve --help`.\n',
    stdout: '',
  },
  {
    argv: ['login', '--tokne=my-secret-token-123'],
    code: 2,
    stderr: 'plants: `plants login` has no flag --tokne\n  Did you mean `--token`?\n  See `plants login --help`.\n',
    stdout: '',
  },
  {
    argv: ['add', '--nmae=Fern', '--tgа', 'x'],
    code: 2,
    stderr:
      'plants: `plants add` has no flags --nmae and --tgа\n  Did you mean `--name` for --nmae?\n  Did you mean `--tag` for --tgа?\n  See `plants add --help`.\n',
    stdout: '',
  },
  {
    argv: ['autocomplete', 'nope'],
    code: 2,
    stderr:
      'plants: SHELL must be one of bash, zsh, fish, powershell (got "nope")\n  Usage: plants autocomplete [SHELL]\n  See `plants autocomplete --help`.\n',
    stdout: '',
  },
  {
    argv: ['autocomplete', 'bash', 'extra'],
    code: 2,
    stderr:
      "plants: unexpected argument: `plants autocomplete` takes at most one argument, SHELL, and a flag's value goes right after it\n  Usage: plants autocomplete [SHELL]\n  See `plants autocomplete --help`.\n",
    stdout: '',
  },
  {
    argv: ['plant', 'ad'],
    code: 127,
    stderr:
      "plants: 'plant ad' is not a plants command.\n  Did you mean `plants plant add`?\n  Run `plants help` for a list of commands.\n",
    stdout: '',
  },
  {
    argv: ['gte', '1'],
    code: 127,
    stderr:
      "plants: 'gte' is not a plants command.\n  Did you mean `plants get`?\n  Run `plants help` for a list of commands.\n",
    stdout: '',
  },
  {
    argv: ['reset', '-yq'],
    code: 2,
    stderr: 'plants: `plants reset` has no flag -q\n  See `plants reset --help`.\n',
    stdout: '',
  },
  {
    argv: ['get', '1', 'Fern'],
    code: 2,
    stderr:
      "plants: unexpected argument: `plants get` takes one argument, ID, and a flag's value goes right after it\n  Usage: plants get ID\n  See `plants get --help`.\n",
    stdout: '',
  },
  {
    argv: ['delete', '--yes'],
    code: 2,
    stderr:
      'plants: `plants delete` needs ID, the id of the plant (a 64-bit integer)\n  Usage: plants delete ID\n  See `plants delete --help`.\n',
    stdout: '',
  },
  {
    argv: ['get', '--timeout', '0', '1'],
    code: 2,
    stderr: 'plants: --timeout must be a number of seconds above 0 (got "0")\n  See `plants get --help`.\n',
    stdout: '',
  },
  {
    argv: ['serve', '--port', '-1'],
    code: 2,
    stderr: 'plants: --port must be a whole number from 0 to 65535 (got "-1")\n  See `plants serve --help`.\n',
    stdout: '',
  },
  {
    argv: ['serve', '--fault-seed', 'abc'],
    code: 2,
    stderr:
      'plants: --fault-seed must be a whole number from 0 to 4294967295 (got "abc")\n  See `plants serve --help`.\n',
    stdout: '',
  },
];
