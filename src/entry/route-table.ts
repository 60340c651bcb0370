import type { FlagValueReader } from '../cli/flag-values.js';

/** Every command as the one parser reads it, derived from the oclif declarations at build time (command-route.ts). */
export interface RouteTable {
  /** By its words on the command line (`add`, `plant add`). */
  commands: Record<string, CommandRoute>;
  /** Topics that are not commands (`plant`): alone on a command line, they ask for their help. */
  topics: string[];
}

export interface CommandRoute {
  /** oclif's id (`add`, `autocomplete:script`). */
  id: string;
  /** The module of its action in src/cli/actions/ (`add-plants`); none for help and autocomplete (oclif runs them). */
  action?: string;
  /** Left out of suggestions for a mistyped command. */
  hidden?: boolean;
  /** false: words after its arguments are passed on (`help`), not refused. */
  strict: boolean;
  flags: Record<string, FlagRoute>;
  args: ArgRoute[];
}

export interface ArgRoute {
  name: string;
  required: boolean;
  description?: string;
  options?: string[];
}

export interface FlagRoute {
  type: 'boolean' | 'option';
  char?: string;
  allowNo?: boolean;
  /** May be given more than once; `greedy`: the words after it are values too (oclif's default). */
  multiple?: boolean;
  greedy?: boolean;
  options?: string[];
  read?: 'string' | 'integer' | FlagValueReader;
  min?: number;
  max?: number;
  default?: unknown;
  required?: boolean;
  exclusive?: string[];
  dependsOn?: string[];
  /** What a usage error calls its value (`--token needs a value: TOKEN`). */
  helpValue?: string;
}
