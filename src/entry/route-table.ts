import type { FlagValueReader } from '../cli/flag-values.js';

/**
 * Every command as the one parser (parse-argv.ts) reads it: derived from the commands' oclif
 * declarations (command-route.ts) at build time, read as JSON at run time by the npm package and
 * built into the single executable.
 */
export interface RouteTable {
  /** Command by its words on the command line (`add`, `plant add`). */
  commands: Record<string, CommandRoute>;
  /** Topics that are not commands (`plant`): alone on a command line, they ask for their help. */
  topics: string[];
}

export interface CommandRoute {
  /** oclif's id (`add`, `autocomplete:script`). */
  id: string;
  /**
   * The module of its action in src/cli/actions/ (`add-plants`), which exports it as `addPlants`;
   * absent for an action of src/cli/help/ (help, autocomplete), which needs oclif's Config.
   */
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
  /** How its value is read: as it is, as a whole number within min and max, or by one of flagValueReaders. */
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
