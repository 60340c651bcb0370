import type { Config } from '@oclif/core';
import { PlantsCommand } from '../../cli/base-command.js';
import { actionExport, actionNamed } from '../../cli/runner.js';
import { commandRoute } from '../command-route.js';
import type { CommandRoute, RouteTable } from '../route-table.js';

/** The route table of every command oclif knows, under its id and its aliases, and the topics that are not commands. */
export async function routeTableFrom(config: Config): Promise<RouteTable> {
  const commands: Record<string, CommandRoute> = {};
  // oclif lists each alias as a command of its own too: the route is the aliased command's.
  const aliases = new Set(config.commands.flatMap((command) => command.aliases));
  for (const cached of config.commands) {
    if (cached.pluginType !== 'core' || aliases.has(cached.id)) continue;
    const loaded = await cached.load();
    if (!(loaded.prototype instanceof PlantsCommand)) continue;
    const action = await actionModule(cached.id, (loaded as typeof PlantsCommand).action);
    const route = commandRoute(cached.id, loaded, action);
    for (const id of [cached.id, ...cached.aliases]) commands[id.split(':').join(' ')] = route;
  }
  const topics = config.topics
    .filter((topic) => !topic.hidden && config.findCommand(topic.name) === undefined)
    .map((topic) => topic.name.split(':').join(' '));
  return { commands, topics };
}

/** The module of src/cli/actions/ exporting a command's action (`addPlants`: add-plants.ts); none for cli/help/. */
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
