/**
 * a. Start-up: whole processes. Wall clock, round robin against `node -e 0` (paired ratios,
 * medians), and callgrind instruction counts beside them, which the goals are read on.
 *
 * Counts on two bases. The bench's children run without NODE_EXTRA_CA_CERTS (context.ts keeps
 * a small environment): the honest floor, `node -e 0` ~90M instructions on Node 20. Where the
 * bench's own environment sets it (as the machine the issue was measured on does), every Node
 * 20 process loads that CA bundle as it starts (~420M more, for `node -e 0` too) and the counts
 * are taken again with it: the basis the goals were set on, and read on here. What a
 * command costs above `node -e 0` is the same on both; only the ratios differ.
 */
import path from 'node:path';
import { countInstructions, hasValgrind, millions } from '../lib/callgrind.js';
import { bench, cli, node, plan, quick, token } from '../lib/context.js';
import { format, median, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** The floor's POSTs use ids from here up, so that they never meet the plants' own. */
const FLOOR_IDS = 1_000_000_000;

/** The machine's CA bundle variable, when the bench's environment has one: the basis. */
const caCerts = process.env.NODE_EXTRA_CA_CERTS || undefined;
const caBasis: Record<string, string> = caCerts === undefined ? {} : { NODE_EXTRA_CA_CERTS: caCerts };

interface Command {
  name: string;
  /** The node arguments for the plant of this round (add, get and delete work on the same one). */
  args: (id: number) => string[];
  input?: string;
  /** Most instructions, as a multiple of `node -e 0`'s. */
  goal?: number;
  /** Counted with callgrind in a BENCH_QUICK run too. */
  quick?: boolean;
}

async function startupRows(): Promise<Row[]> {
  const server = await startPlantsServe('memory', 'normal');
  try {
    const url = server.url;
    const commands: Command[] = [
      { name: 'node -e 0', args: () => ['-e', '0'], quick: true },
      {
        name: 'node:http POST (floor)',
        args: (id) => [path.join(bench, 'floor-post.mjs'), url, token, String(FLOOR_IDS + id)],
        quick: true,
      },
      { name: 'plants --version', args: () => [cli, '--version'] },
      {
        name: 'plants add --id N --name x',
        args: (id) => [cli, 'add', '--id', String(id), '--name', 'x', '--base-url', url],
        goal: 1.5,
        quick: true,
      },
      { name: 'plants get N', args: (id) => [cli, 'get', String(id), '--base-url', url], goal: 2 },
      {
        name: 'plants list --json',
        args: () => [cli, 'list', '--json', '--limit', '10', '--base-url', url],
        goal: 2,
        quick: true,
      },
      { name: 'plants delete N', args: (id) => [cli, 'delete', String(id), '--base-url', url], goal: 2 },
      // Against the bench's store: status asks it whether it answers (exit 3 when nothing listens),
      // and login tries the token on it.
      { name: 'plants status', args: () => [cli, 'status', '--base-url', url], goal: 2 },
      {
        name: 'plants login --with-token',
        args: () => [cli, 'login', '--with-token', '--base-url', url],
        input: `${token}\n`,
        goal: 2,
      },
      { name: 'plants logout', args: () => [cli, 'logout', '--base-url', url], goal: 2 },
      { name: 'plants --help', args: () => [cli, '--help'], goal: 2, quick: true },
    ];
    let nextId = 1;
    const times = commands.map(() => [] as number[]);
    const rounds = plan.startupWarmup + plan.startupRuns;
    for (let round = 0; round < rounds; round++) {
      const id = nextId++;
      // Round robin, so that a slow spell of the machine hits every command alike.
      for (const [index, command] of commands.entries()) {
        const input = command.input;
        const result = await run(node, command.args(id), {
          timeoutMs: 30_000,
          stdout: 'ignore',
          ...(input === undefined ? {} : { input }),
        });
        if (result.code !== 0) {
          throw new Error(
            `${command.name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
          );
        }
        if (round >= plan.startupWarmup) times[index]?.push(result.ms);
      }
    }

    // Counts move little from run to run: medians of a few rounds, each in the same order (add
    // before get and delete). The rounds above left the code caches warm (bin/run.js keeps them
    // in the user's cache folder), as a second run of any command finds them.
    const bases = caCerts === undefined ? [{}] : [{}, caBasis];
    const runs = bases.map(() => commands.map(() => [] as number[]));
    for (let round = 0; hasValgrind && round < plan.callgrindRuns; round++) {
      for (const [basis, extraEnv] of bases.entries()) {
        const id = nextId++;
        for (const [index, command] of commands.entries()) {
          if (quick && !command.quick) continue;
          const label = basis === 0 ? 'without NODE_EXTRA_CA_CERTS' : 'with NODE_EXTRA_CA_CERTS';
          progress(`callgrind ${round + 1}/${plan.callgrindRuns}, ${label}: ${command.name}`);
          const count = await countInstructions(command.args(id), command.input, extraEnv);
          if (count !== undefined) runs[basis]?.[index]?.push(count);
        }
      }
    }
    const counts = runs.map((basis) => basis.map((values) => (values.length === 0 ? undefined : median(values))));
    /** The count of command `index` on a basis, and its ratio to that basis's `node -e 0` (and to the floor). */
    const onBasis = (basis: number, index: number) => {
      const count = counts[basis]?.[index];
      const bare = counts[basis]?.[0];
      const floor = counts[basis]?.[1];
      if (count === undefined || bare === undefined) return undefined;
      return { count, ratio: count / bare, floorRatio: floor === undefined ? undefined : count / floor };
    };
    // The goals are the issue's, set with the CA bundle loaded: read on that basis where the
    // environment has one, else on the floor without it.
    const goalBasis = caCerts === undefined ? 0 : 1;
    const goalBasisName = caCerts === undefined ? 'without NODE_EXTRA_CA_CERTS' : 'with NODE_EXTRA_CA_CERTS';
    const perRound = (index: number) =>
      median((times[index] ?? []).map((ms, round) => ms / (times[0]?.[round] ?? Number.NaN)));
    return commands.map((command, index): Row => {
      const described = bases.map((_, basis) => {
        const figures = onBasis(basis, index);
        if (figures === undefined) return undefined;
        const floor =
          command.name.startsWith('plants add') && figures.floorRatio !== undefined
            ? `, ${format.times(figures.floorRatio)} floor`
            : '';
        const name = basis === 0 ? 'no CA' : 'CA';
        return `${name} ${format.times(figures.ratio)} (${millions(figures.count)}${floor})`;
      });
      const instructions = described.every((text) => text === undefined)
        ? hasValgrind
          ? 'callgrind: skipped (BENCH_QUICK)'
          : 'callgrind: n/a (no valgrind)'
        : `callgrind ${described.filter((text) => text !== undefined).join('; ')}`;
      const goalRatio = onBasis(goalBasis, index)?.ratio;
      return {
        id: `a${index + 1}`,
        what: command.name,
        median: format.ms(median(times[index] ?? [])),
        spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
        ratio: `wall (no CA) ${format.times(index === 0 ? 1 : perRound(index))}; ${instructions}`,
        goal: command.goal === undefined ? '' : `≤ ${command.goal}x node -e 0 (callgrind, ${goalBasisName})`,
        result: command.goal === undefined || goalRatio === undefined ? '' : verdict(goalRatio <= command.goal),
      };
    });
  } finally {
    await server.stop();
  }
}

export const startup: RowGroup = { key: 'a', title: 'start-up', rows: startupRows };
