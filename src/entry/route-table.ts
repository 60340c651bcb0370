import type { FlagValueReader } from '../cli/flag-values.js';

/**
 * What the fast route knows of the commands: generated from their oclif declarations
 * (build/route-table-from-oclif.ts) at build time, read as JSON at run time. A command is here
 * only when its action (`static action`) is one of src/cli/actions/.
 */
export interface RouteTable {
  /** Command by its words on the command line (`add`, `plant add`). */
  commands: Record<string, CommandRoute>;
}

export interface CommandRoute {
  /** oclif's id (`add`). */
  id: string;
  /** The module of its action in src/cli/actions/ (`add-plants`), which exports it as `addPlants`. */
  action: string;
  flags: Record<string, FlagRoute>;
  args: ArgRoute[];
}

export interface ArgRoute {
  name: string;
  required: boolean;
}

export interface FlagRoute {
  type: 'boolean' | 'option';
  char?: string;
  allowNo?: boolean;
  /** May be given more than once; `greedy`: the words after it are values too (oclif's default). */
  multiple?: boolean;
  greedy?: boolean;
  options?: string[];
  /**
   * How its value is read: as it is, as oclif's integer (within min and max), or by one of
   * flagValueReaders. Absent: by a parse function of the declaration's own, which only oclif
   * runs, so a command line that gives this flag goes to oclif.
   */
  read?: 'string' | 'integer' | FlagValueReader;
  min?: number;
  max?: number;
  default?: unknown;
  required?: boolean;
  exclusive?: string[];
  dependsOn?: string[];
}
