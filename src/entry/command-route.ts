import { type Command, Flags } from '@oclif/core';
import { READER } from '../cli/flag-kinds.js';
import type { FlagValueReader } from '../cli/flag-values.js';
import type { ArgRoute, CommandRoute, FlagRoute } from './route-table.js';

type DeclaredFlag = Command.Flag.Cached & {
  parse?: unknown;
  min?: number;
  max?: number;
  multipleNonGreedy?: boolean;
};

/** What of a flag's declaration the one parser does not read: the build refuses a command that uses one. */
const UNREAD = ['relationships', 'env', 'delimiter', 'allowStdin', 'aliases', 'charAliases', 'exactlyOne'] as const;
const CONSTRAINTS = ['combinable', 'atLeastOne'] as const;

const integerParse = Flags.integer().parse;
const stringParse = String(Flags.string().parse);

/**
 * A command's route, from its oclif class. Throws for what the parser would not read as oclif
 * does (a parse function of its own, env, aliases…): a new kind of flag fails the build, not a run.
 */
export function commandRoute(id: string, command: Command.Class, action: string | undefined): CommandRoute {
  const args: ArgRoute[] = Object.entries(command.args ?? {}).map(([name, arg]) => {
    if (arg.multiple) throw new Error(`\`${id}\`'s argument ${name} takes many values: the parser reads one`);
    const route: ArgRoute = { name, required: arg.required === true };
    if (arg.description !== undefined) route.description = arg.description;
    if (arg.options !== undefined) route.options = [...arg.options];
    return route;
  });
  const flags = Object.fromEntries(
    Object.entries((command.flags ?? {}) as Record<string, DeclaredFlag>).map(([name, flag]) => [
      name,
      flagRoute(`${id} --${name}`, flag),
    ]),
  );
  const route: CommandRoute = { id, strict: command.strict !== false, flags, args };
  if (action !== undefined) route.action = action;
  if (command.hidden) route.hidden = true;
  return route;
}

function flagRoute(where: string, flag: DeclaredFlag): FlagRoute {
  const unread = [...UNREAD, ...CONSTRAINTS].filter((key) => (flag as Record<string, unknown>)[key] !== undefined);
  if (unread.length > 0) throw new Error(`${where} declares ${unread.join(', ')}, which the parser does not read`);
  const route: FlagRoute = { type: flag.type };
  if (flag.char !== undefined) route.char = flag.char;
  if (flag.type === 'boolean' && flag.allowNo) route.allowNo = true;
  if (flag.required) route.required = true;
  if (flag.exclusive !== undefined) route.exclusive = [...flag.exclusive];
  if (flag.dependsOn !== undefined) route.dependsOn = [...flag.dependsOn];
  if (typeof flag.default === 'function') throw new Error(`${where} has a default the parser cannot read`);
  if (flag.default !== undefined) route.default = flag.default;
  if (flag.type === 'option') {
    if (flag.multiple) {
      route.multiple = true;
      if (!flag.multipleNonGreedy) route.greedy = true;
    }
    if (flag.options !== undefined) route.options = [...flag.options];
    route.read = readerOf(where, flag);
    if (flag.min !== undefined) route.min = flag.min;
    if (flag.max !== undefined) route.max = flag.max;
    const helpValue = Array.isArray(flag.helpValue) ? flag.helpValue[0] : flag.helpValue;
    if (helpValue !== undefined) route.helpValue = helpValue;
  }
  return route;
}

function readerOf(where: string, flag: DeclaredFlag): NonNullable<FlagRoute['read']> {
  const parse = flag.parse as ((...args: unknown[]) => unknown) & { [READER]?: FlagValueReader };
  if (parse === integerParse) return 'integer';
  if (parse?.[READER] !== undefined) return parse[READER];
  if (parse === undefined || String(parse) === stringParse) return 'string';
  throw new Error(`${where} reads its value with a function of its own: give it a reader of src/cli/flag-values.ts`);
}
