/** a. Start-up: whole processes, round robin against `node -e 0` and a bare node:http POST. */
import path from 'node:path';
import { bench, cli, node, plan, token } from '../lib/context.js';
import { format, median, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';

async function startupRows(): Promise<Row[]> {
  const server = await startPlantsServe('memory', 'normal');
  try {
    let nextId = 1;
    const commands: Array<{ name: string; args: () => string[] }> = [
      { name: 'node -e 0', args: () => ['-e', '0'] },
      {
        name: 'node:http POST (floor)',
        args: () => [path.join(bench, 'floor-post.mjs'), server.url, token, String(nextId++)],
      },
      { name: 'plants --version', args: () => [cli, '--version'] },
      {
        name: 'plants add --id N --name x',
        args: () => [cli, 'add', '--id', String(nextId++), '--name', 'x', '--base-url', server.url],
      },
    ];
    const times = commands.map(() => [] as number[]);
    const rounds = plan.startupWarmup + plan.startupRuns;
    for (let round = 0; round < rounds; round++) {
      // Round robin, so that a slow spell of the machine hits every command alike.
      for (const [index, command] of commands.entries()) {
        const result = await run(node, command.args(), { timeoutMs: 30_000, stdout: 'ignore' });
        if (result.code !== 0) {
          throw new Error(
            `${command.name} failed (exit ${result.code ?? result.signal}):\n${result.stderr.slice(-2000)}`,
          );
        }
        if (round >= plan.startupWarmup) times[index]?.push(result.ms);
      }
    }
    const perRound = (index: number, base: number) =>
      median((times[index] ?? []).map((ms, round) => ms / (times[base]?.[round] ?? Number.NaN)));
    const [bare, floor, version, add] = [0, 1, 2, 3].map((index) => median(times[index] ?? []));
    const versionRatio = perRound(2, 0);
    const addRatio = perRound(3, 0);
    const row = (id: string, index: number, value: number | undefined, ratio: string, goal = '', result = '') => ({
      id,
      what: commands[index]?.name ?? '',
      median: format.ms(value ?? Number.NaN),
      spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
      ratio,
      goal,
      result,
    });
    return [
      row('a1', 0, bare, '1.00x node -e 0'),
      row('a2', 1, floor, `${format.times(perRound(1, 0))} node -e 0`),
      row('a3', 2, version, `${format.times(versionRatio)} node -e 0`, '≤ 2x node -e 0', verdict(versionRatio <= 2)),
      row(
        'a4',
        3,
        add,
        `${format.times(addRatio)} node -e 0, ${format.times(perRound(3, 1))} floor`,
        '≤ 2.5x node -e 0',
        verdict(addRatio <= 2.5),
      ),
    ];
  } finally {
    await server.stop();
  }
}

export const startup: RowGroup = { key: 'a', title: 'start-up', rows: startupRows };
