/**
 * a. Start-up: whole processes, counted in instructions by callgrind (the goals are read on these),
 * with wall-clock medians beside (round robin against `node -e 0`).
 *
 * Counted as users run plants: without NODE_EXTRA_CA_CERTS (the bench's children never get it).
 * Where the bench's own environment sets it (as this machine's does: Node then parses a CA file
 * in every process, `node -e 0` included) the counts are taken with it too, as a second basis.
 * Each command is counted at the baseline commit (lib/baseline.ts, built in the same run) and now,
 * on the bench's Node (the project's, Node 24: package.json's `node`), so that "no slower than
 * before" is a ratio measured side by side.
 */
import path from 'node:path';
import type { NodeBinary } from '../../test/helpers/nodes.js';
import { baselineCommit, buildBaseline, removeBaseline } from '../lib/baseline.js';
import { countInstructions, countOnTerminal, hasValgrind, millions } from '../lib/callgrind.js';
import { bench, cli, node, plan, quick, token } from '../lib/context.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

/** The floor's POSTs use ids from here up, so that they never meet the plants' own. */
const FLOOR_IDS = 1_000_000_000;

/** The machine's CA bundle variable, when the bench's environment has one: the second basis. */
const caCerts = process.env.NODE_EXTRA_CA_CERTS || undefined;

/** What a command's goal is measured against. */
type Goal = { kind: 'baseline'; most: number } | { kind: 'node'; most: number } | { kind: 'none' };

interface Command {
  name: string;
  /** The arguments after node for the plant of this round, with the CLI given (now's or the baseline's). */
  args: (cli: string, id: number) => string[];
  input?: string;
  goal: Goal;
  /** Counted in a BENCH_QUICK run too. */
  quick?: boolean;
}

const STORE = { kind: 'baseline', most: 1.05 } as const;

function commands(url: string): Command[] {
  const store = ['--base-url', url];
  return [
    { name: 'node -e 0', args: () => ['-e', '0'], goal: { kind: 'none' }, quick: true },
    {
      name: 'node:http POST (floor)',
      args: (_, id) => [path.join(bench, 'floor-post.mjs'), url, token, String(FLOOR_IDS + id)],
      goal: { kind: 'none' },
    },
    { name: 'plants --version', args: (c) => [c, '--version'], goal: { kind: 'node', most: 2 }, quick: true },
    { name: 'plants --help', args: (c) => [c, '--help'], goal: { kind: 'node', most: 2 }, quick: true },
    { name: 'plants add --help', args: (c) => [c, 'add', '--help'], goal: { kind: 'node', most: 3.5 } },
    { name: 'plants serve --help', args: (c) => [c, 'serve', '--help'], goal: { kind: 'node', most: 3.5 } },
    { name: 'plants reset --help', args: (c) => [c, 'reset', '--help'], goal: { kind: 'node', most: 3.5 } },
    { name: 'plants help list', args: (c) => [c, 'help', 'list'], goal: { kind: 'node', most: 3.5 } },
    {
      name: 'plants add --id N --name x',
      args: (c, id) => [c, 'add', '--id', String(id), '--name', 'x', ...store],
      // The one command that sent with a client of its own before undici (issue 37): undici's price.
      goal: { kind: 'baseline', most: 1.15 },
      quick: true,
    },
    { name: 'plants get N', args: (c, id) => [c, 'get', String(id), ...store], goal: STORE },
    // The same get spelled as oclif alone read it before the one parser (1,100M+ on Node 24 at
    // 61028b4): now the cost of its plain spelling, the row above.
    {
      name: 'plants get --json -- N',
      args: (c, id) => [c, 'get', '--json', ...store, '--', String(id)],
      goal: { kind: 'none' },
    },
    {
      name: 'plants list --json',
      args: (c) => [c, 'list', '--json', '--limit', '10', ...store],
      goal: STORE,
      quick: true,
    },
    { name: 'plants delete N --yes', args: (c, id) => [c, 'delete', String(id), '--yes', ...store], goal: STORE },
    { name: 'plants status', args: (c) => [c, 'status', ...store], goal: STORE },
    {
      name: 'plants login --with-token',
      args: (c) => [c, 'login', '--with-token', ...store],
      input: `${token}\n`,
      goal: STORE,
      quick: true,
    },
    { name: 'plants logout', args: (c) => [c, 'logout', ...store], goal: STORE },
    { name: 'plants reset --yes', args: (c) => [c, 'reset', '--yes', ...store], goal: STORE },
  ];
}

/** Median instruction counts of each command on one Node with one CLI (undefined where not counted). */
async function counts(
  list: readonly Command[],
  theCli: string,
  nodeBinary: string,
  extraEnv: Record<string, string>,
  label: string,
  nextId: () => number,
): Promise<Array<number | undefined>> {
  const runs = list.map(() => [] as number[]);
  // Warm the code caches first, as a second run of any command finds them.
  for (const command of list) {
    if (quick && !command.quick) continue;
    await run(nodeBinary, command.args(theCli, nextId()), {
      timeoutMs: 60_000,
      stdout: 'ignore',
      input: command.input,
    });
  }
  for (let round = 0; round < plan.callgrindRuns; round++) {
    const id = nextId();
    for (const [index, command] of list.entries()) {
      if (quick && !command.quick) continue;
      progress(`callgrind ${round + 1}/${plan.callgrindRuns}, ${label}: ${command.name}`);
      const count = await countInstructions(command.args(theCli, id), command.input, extraEnv, nodeBinary);
      if (count !== undefined) runs[index]?.push(count);
    }
  }
  return runs.map((values) => (values.length === 0 ? undefined : median(values)));
}

async function startupRows(): Promise<Row[]> {
  const server = await startPlantsServe('memory', 'normal', undefined, ['--allow-reset']);
  const baseline = hasValgrind ? buildBaseline() : { error: 'no valgrind' };
  try {
    const list = commands(server.url);
    let id = 1;
    const nextId = () => id++;

    // Wall clock, this checkout on this machine's Node, round robin.
    const times = list.map(() => [] as number[]);
    for (let round = 0; round < plan.startupWarmup + plan.startupRuns; round++) {
      const roundId = nextId();
      for (const [index, command] of list.entries()) {
        const result = await run(node, command.args(cli, roundId), {
          timeoutMs: 30_000,
          stdout: 'ignore',
          ...(command.input === undefined ? {} : { input: command.input }),
        });
        if (result.code !== 0) {
          throw new Error(
            `${command.name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
          );
        }
        if (round >= plan.startupWarmup) times[index]?.push(result.ms);
      }
    }

    const nodes: NodeBinary[] = [{ version: process.versions.node, node }];
    const now: Array<Array<number | undefined>> = [];
    const before: Array<Array<number | undefined>> = [];
    for (const binary of nodes) {
      now.push(await counts(list, cli, binary.node, {}, `Node ${binary.version}, now`, nextId));
      before.push(
        'cli' in baseline
          ? await counts(list, baseline.cli, binary.node, {}, `Node ${binary.version}, ${baselineCommit}`, nextId)
          : list.map(() => undefined),
      );
    }
    const withCa =
      caCerts === undefined
        ? undefined
        : await counts(
            list,
            cli,
            node,
            { NODE_EXTRA_CA_CERTS: caCerts },
            `Node ${process.versions.node}, with NODE_EXTRA_CA_CERTS`,
            nextId,
          );

    const rows = list.map((command, index): Row => {
      const perNode = nodes.map((binary, n) => {
        const count = now[n]?.[index];
        const bare = now[n]?.[0];
        const old = before[n]?.[index];
        if (count === undefined || bare === undefined) return { text: undefined, node: undefined, baseline: undefined };
        const vsNode = count / bare;
        const vsBaseline = old === undefined ? undefined : count / old;
        const major = binary.version.split('.')[0];
        const parts = [`${millions(count)}`, `${format.times(vsNode)} node`];
        if (vsBaseline !== undefined) parts.push(`${format.times(vsBaseline)} baseline`);
        return { text: `Node ${major}: ${parts.join(', ')}`, node: vsNode, baseline: vsBaseline };
      });
      const ca = withCa?.[index];
      const caBare = withCa?.[0];
      const caText = ca === undefined || caBare === undefined ? undefined : `CA: ${format.times(ca / caBare)} node`;
      const described = [...perNode.map((entry) => entry.text), caText].filter((text) => text !== undefined);
      const { goal } = command;
      let met: boolean | undefined;
      let goalText = '';
      if (goal.kind === 'baseline') {
        goalText = `≤ ${goal.most}x baseline (callgrind, no CA, Node ${nodes.map((b) => b.version.split('.')[0]).join(' and ')})`;
        const ratios = perNode.map((entry) => entry.baseline);
        met = ratios.every((ratio) => ratio !== undefined)
          ? ratios.every((ratio) => (ratio as number) <= goal.most)
          : undefined;
      } else if (goal.kind === 'node') {
        goalText = `≤ ${goal.most}x node -e 0 (callgrind, no CA)`;
        met = perNode[0]?.node === undefined ? undefined : perNode[0].node <= goal.most;
      }
      const perRound = median((times[index] ?? []).map((ms, round) => ms / (times[0]?.[round] ?? Number.NaN)));
      return {
        id: `a${index + 1}`,
        what: command.name,
        median: format.ms(median(times[index] ?? [])),
        spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
        ratio: `wall ${format.times(index === 0 ? 1 : perRound)}; ${
          described.length === 0
            ? hasValgrind
              ? 'callgrind: skipped (BENCH_QUICK)'
              : 'callgrind: n/a'
            : described.join('; ')
        }`,
        goal: goalText,
        result: goal.kind === 'none' ? '' : verdict(met),
      };
    });
    if ('error' in baseline)
      rows.push(noteRow(`a${rows.length + 1}`, `baseline ${baselineCommit}`, `not built: ${baseline.error}`));
    rows.push(await colourRow(server.url, rows.length + 1));
    return rows;
  } finally {
    removeBaseline();
    await server.stop();
  }
}

/** `plants get` with stdout and stderr on a terminal, against the same in a pipe (colour allowed in both). */
async function colourRow(url: string, index: number): Promise<Row> {
  const args = [cli, 'get', '1', '--base-url', url];
  const pipe: number[] = [];
  const terminal: number[] = [];
  await run(node, [cli, 'add', '--id', '1', '--name', 'Fern', '--base-url', url], { timeoutMs: 30_000 });
  for (let round = 0; hasValgrind && round < plan.callgrindRuns; round++) {
    progress(`callgrind ${round + 1}/${plan.callgrindRuns}: plants get on a terminal and in a pipe`);
    const onTerminal = await countOnTerminal(args);
    const inPipe = await countInstructions(args, undefined, {});
    if (onTerminal !== undefined) terminal.push(onTerminal);
    if (inPipe !== undefined) pipe.push(inPipe);
  }
  const ratio = median(terminal) / median(pipe);
  return {
    id: `a${index}`,
    what: 'plants get N on a terminal (colour) vs in a pipe',
    median: '',
    spread: '',
    ratio:
      terminal.length === 0
        ? 'callgrind: n/a'
        : `${millions(median(terminal))} vs ${millions(median(pipe))}: ${format.times(ratio)}`,
    goal: '≤ 1.1x the pipe (callgrind, no CA)',
    result: terminal.length === 0 ? '' : verdict(ratio <= 1.1),
  };
}

export const startup: RowGroup = { key: 'a', title: 'start-up', rows: startupRows };
