import { type Command, type Config, Flags } from '@oclif/core';
import { PlantsCommand } from '../../cli/base-command.js';
import { READER } from '../../cli/flag-kinds.js';
import type { FlagValueReader } from '../../cli/flag-values.js';
import { actionExport, actionNamed } from '../../cli/runner.js';
import type { CommandRoute, FlagRoute, RouteTable } from '../route-table.js';

type LoadedFlag = Command.Flag.Cached & {
  parse?: unknown;
  min?: number;
  max?: number;
  multipleNonGreedy?: boolean;
  relationships?: unknown;
  env?: string;
  delimiter?: string;
  allowStdin?: unknown;
};

const integerParse = Flags.integer().parse;
const stringParse = String(Flags.string().parse);

/**
 * The route table of the commands oclif knows (its manifest, and each class for how a flag's value
 * is read): every command whose action the fast route runs, under its id and its aliases.
 */
export async function routeTableFrom(config: Config): Promise<RouteTable> {
  const commands: Record<string, CommandRoute> = {};
  // oclif lists each alias as a command of its own too: the route is the aliased command's.
  const aliases = new Set(config.commands.flatMap((command) => command.aliases));
  for (const cached of config.commands) {
    if (cached.pluginType !== 'core' || aliases.has(cached.id)) continue;
    const loaded = await cached.load();
    if (!(loaded.prototype instanceof PlantsCommand)) continue;
    const action = await actionModule(cached.id, (loaded as typeof PlantsCommand).action);
    if (action === undefined || loaded.strict === false) continue;
    const route: CommandRoute = {
      id: cached.id,
      action,
      flags: Object.fromEntries(
        Object.entries((loaded.flags ?? {}) as Record<string, LoadedFlag>).map(([name, flag]) => [
          name,
          flagRoute(flag),
        ]),
      ),
      args: Object.entries(loaded.args ?? {}).map(([name, arg]) => ({ name, required: arg.required === true })),
    };
    for (const id of [cached.id, ...cached.aliases]) commands[id.split(':').join(' ')] = route;
  }
  return { commands };
}

/**
 * The module of src/cli/actions/ a command's action is the export of, named after it
 * (`addPlants`: add-plants.ts), which is how the fast route finds it (runner.ts's actionNamed);
 * undefined for an action of src/cli/help/, which needs oclif's Config: oclif's route runs it.
 */
async function actionModule(id: string, action: typeof PlantsCommand.action): Promise<string | undefined> {
  const module = action.name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  if (actionExport(module) === action.name) {
    if ((await actionNamed(module).catch(() => undefined)) === action) return module;
    const help: Record<string, unknown> = await import(`../../cli/help/${module}.js`).catch(() => ({}));
    if (help[action.name] === action) return undefined;
  }
  throw new Error(
    `the action of \`${id}\`, ${action.name}, must be the export of src/cli/actions/${module}.ts or src/cli/help/${module}.ts`,
  );
}

function flagRoute(flag: LoadedFlag): FlagRoute {
  const route: FlagRoute = { type: flag.type };
  if (flag.char !== undefined) route.char = flag.char;
  if (flag.type === 'boolean' && flag.allowNo) route.allowNo = true;
  if (flag.required) route.required = true;
  if (flag.exclusive !== undefined) route.exclusive = [...flag.exclusive];
  if (flag.dependsOn !== undefined) route.dependsOn = [...flag.dependsOn];
  if (flag.default !== undefined && typeof flag.default !== 'function') route.default = flag.default;
  if (flag.type === 'option') {
    if (flag.multiple) {
      route.multiple = true;
      if (!flag.multipleNonGreedy) route.greedy = true;
    }
    if (flag.options !== undefined) route.options = [...flag.options];
    const read = readerOf(flag);
    if (read !== undefined) route.read = read;
    if (flag.min !== undefined) route.min = flag.min;
    if (flag.max !== undefined) route.max = flag.max;
  }
  // What the fast route does not read the way oclif does: the flag is then left to oclif.
  const unread =
    flag.relationships ?? flag.env ?? flag.delimiter ?? flag.allowStdin ?? flag.aliases ?? flag.charAliases;
  if (unread !== undefined) {
    route.type = 'option';
    delete route.read;
  }
  return route;
}

function readerOf(flag: LoadedFlag): FlagRoute['read'] {
  const parse = flag.parse as ((...args: unknown[]) => unknown) & { [READER]?: FlagValueReader };
  if (parse === integerParse) return 'integer';
  if (parse?.[READER] !== undefined) return parse[READER];
  if (String(parse) === stringParse) return 'string';
  return undefined;
}
