/**
 * a. Start-up: whole processes. Wall clock, round robin against `node -e 0` (paired ratios,
 * medians), and callgrind instruction counts beside them, which the goals are read on.
 */
import path from 'node:path';
import { countInstructions, hasValgrind, millions } from '../lib/callgrind.js';
import { bench, cli, node, plan, quick, token } from '../lib/context.js';
import { format, median, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** The floor's POSTs use ids from here up, so that they never meet the plants' own. */
const FLOOR_IDS = 1_000_000_000;

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
      { name: 'plants status', args: () => [cli, 'status'], goal: 2 },
      { name: 'plants login --with-token', args: () => [cli, 'login', '--with-token'], input: `${token}\n`, goal: 2 },
      { name: 'plants logout', args: () => [cli, 'logout'], goal: 2 },
      { name: 'plants --help', args: () => [cli, '--help'], goal: 2 },
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
    // before get and delete).
    const runs = commands.map(() => [] as number[]);
    for (let round = 0; hasValgrind && round < plan.callgrindRuns; round++) {
      const id = nextId++;
      for (const [index, command] of commands.entries()) {
        if (quick && !command.quick) continue;
        progress(`callgrind ${round + 1}/${plan.callgrindRuns}: ${command.name}`);
        const count = await countInstructions(command.args(id), command.input);
        if (count !== undefined) runs[index]?.push(count);
      }
    }
    const counts = runs.map((values) => (values.length === 0 ? undefined : median(values)));
    const bareCount = counts[0];
    const perRound = (index: number) =>
      median((times[index] ?? []).map((ms, round) => ms / (times[0]?.[round] ?? Number.NaN)));
    return commands.map((command, index): Row => {
      const count = counts[index];
      const countRatio = count === undefined || bareCount === undefined ? undefined : count / bareCount;
      const instructions =
        count === undefined || countRatio === undefined
          ? hasValgrind
            ? 'callgrind: skipped (BENCH_QUICK)'
            : 'callgrind: n/a (no valgrind)'
          : `callgrind ${format.times(countRatio)} (${millions(count)})`;
      return {
        id: `a${index + 1}`,
        what: command.name,
        median: format.ms(median(times[index] ?? [])),
        spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
        ratio: `wall ${format.times(index === 0 ? 1 : perRound(index))}; ${instructions}`,
        goal: command.goal === undefined ? '' : `≤ ${command.goal}x node -e 0 (callgrind)`,
        result: command.goal === undefined || countRatio === undefined ? '' : verdict(countRatio <= command.goal),
      };
    });
  } finally {
    await server.stop();
  }
}

export const startup: RowGroup = { key: 'a', title: 'start-up', rows: startupRows };
