/**
 * j. The single executable (binary/plants-linux-x64, `npm run build:binary`; the bench builds
 * nothing, so without it these rows say so): start-up counted by callgrind against `node -e 0` of
 * the Node inside it (the same official binary, from .ci/node-matrix, in the same run), without
 * NODE_EXTRA_CA_CERTS as the bench's children always are; then the wall time of 100 adds in a
 * shell loop, one process per add, against curl and against the npm package's `plants`, in
 * rounds (each round runs the three loops back to back); then its size.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { nodeOfLine } from '../../test/helpers/nodes.js';
import { countInstructions, hasValgrind, millions } from '../lib/callgrind.js';
import { cli, plan, quick, root, token } from '../lib/context.js';
import { format, median, noteRow, progress, type Row, type RowGroup, verdict } from '../lib/format.js';
import { run } from '../lib/processes.js';
import { startPlantsServe } from '../lib/servers.js';
import { hasCommand } from '../lib/system.js';

const BINARY = path.join(root, 'binary', 'plants-linux-x64');
/** The loop's ids start here, clear of every other row's. */
const LOOP_IDS = 2_000_000_000;
const LOOP_ADDS = 100;

/** The Node version inside the binary: its `--version` says (`node-v26.12.1`). */
async function innerNodeVersion(): Promise<string | undefined> {
  const result = await run(BINARY, ['--version'], { timeoutMs: 30_000 });
  return /node-v(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

async function binaryRows(): Promise<Row[]> {
  if (!existsSync(BINARY)) return [noteRow('j1', 'plants-linux-x64', 'not built: npm run build:binary first')];
  const version = await innerNodeVersion();
  const inner = version === undefined ? undefined : nodeOfLine(version);
  const server = await startPlantsServe('memory', 'normal');
  const rows: Row[] = [];
  try {
    let id = 1_500_000_000;
    const commands: Array<{ name: string; file: string; args: () => string[]; most?: number }> = [
      { name: `node -e 0 (Node ${version}, the binary's)`, file: inner?.node ?? '', args: () => ['-e', '0'] },
      { name: 'plants-linux-x64 --version', file: BINARY, args: () => ['--version'], most: 1.2 },
      { name: 'plants-linux-x64 --help', file: BINARY, args: () => ['--help'], most: 1.2 },
      {
        name: 'plants-linux-x64 add --id N --name x (to a store on loopback)',
        file: BINARY,
        args: () => ['add', '--id', String(id++), '--name', 'x', '--base-url', server.url],
        most: 1.8,
      },
    ];
    if (inner === undefined) {
      rows.push(noteRow('j1', `node -e 0 of Node ${version}`, 'n/a: .ci/node-matrix could not install it'));
    } else if (!hasValgrind) {
      rows.push(noteRow('j1', 'plants-linux-x64 start-up', 'callgrind: n/a (no valgrind)'));
    } else {
      const runs = commands.map(() => [] as number[]);
      for (let round = 0; round < plan.callgrindRuns; round++) {
        for (const [index, command] of commands.entries()) {
          progress(`callgrind ${round + 1}/${plan.callgrindRuns}, the binary: ${command.name}`);
          const count = await countInstructions(command.args(), undefined, {}, command.file);
          if (count !== undefined) runs[index]?.push(count);
        }
      }
      const bare = median(runs[0] ?? []);
      for (const [index, command] of commands.entries()) {
        const count = median(runs[index] ?? []);
        const ratio = count / bare;
        rows.push({
          id: `j${index + 1}`,
          what: command.name,
          median: millions(count),
          spread: format.spread(runs[index] ?? [], millions),
          ratio: index === 0 ? '1.00x' : `${format.times(ratio)} node -e 0`,
          goal: command.most === undefined ? '' : `≤ ${command.most}x node -e 0 (callgrind, no CA, same Node)`,
          result: command.most === undefined ? '' : verdict(ratio <= command.most),
        });
      }
    }
    rows.push(...(await loopRows(server.url, rows.length + 1)));
    rows.push(sizeRow(rows.length + 1, inner?.node));
    return rows;
  } finally {
    await server.stop();
  }
}

/** 100 adds in a bash loop, one process each: the binary, curl and the npm package's plants, round robin. */
async function loopRows(url: string, first: number): Promise<Row[]> {
  const loops: Array<{ name: string; command: string }> = [
    {
      name: `curl, ${LOOP_ADDS} POSTs in a shell loop`,
      command: `curl -sf -o /dev/null -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "{\\"id\\":$i,\\"name\\":\\"x\\"}" "$URL/plants"`,
    },
    {
      name: `plants-linux-x64, ${LOOP_ADDS} adds in a shell loop`,
      command: `"$BINARY" add --id "$i" --name x --base-url "$URL" >/dev/null`,
    },
    {
      name: `plants (npm package, bin/run.js on Node ${process.versions.node}), ${LOOP_ADDS} adds in a shell loop`,
      command: `"$CLI" add --id "$i" --name x --base-url "$URL" >/dev/null`,
    },
  ];
  if (!hasCommand('curl')) return [noteRow(`j${first}`, 'shell loops', 'n/a: no curl')];
  const rounds = quick ? 1 : 3;
  const times = loops.map(() => [] as number[]);
  let base = LOOP_IDS;
  for (let round = 0; round < rounds; round++) {
    for (const [index, loop] of loops.entries()) {
      progress(`loop ${round + 1}/${rounds}: ${loop.name}`);
      const script = `for i in $(seq ${base} ${base + LOOP_ADDS - 1}); do ${loop.command} || exit 1; done`;
      base += LOOP_ADDS;
      const env = `TOKEN=${token} URL=${url} BINARY=${BINARY} CLI=${cli}`;
      const result = await run('bash', ['-c', `export ${env}; ${script}`], { timeoutMs: 600_000 });
      if (result.code !== 0)
        throw new Error(`${loop.name} failed (exit ${result.code}): ${result.stderr.slice(-1000)}`);
      times[index]?.push(result.ms);
    }
  }
  return loops.map((loop, index) => {
    const perRound = (times[index] ?? []).map((ms, round) => ms / (times[0]?.[round] ?? Number.NaN));
    return {
      id: `j${first + index}`,
      what: loop.name,
      median: format.ms(median(times[index] ?? [])),
      spread: format.spread(times[index] ?? [], (ms) => ms.toFixed(0)),
      ratio: `${format.times(median(perRound))} curl; ${format.ms(median(times[index] ?? []) / LOOP_ADDS)} per call`,
      goal: '',
      result: '',
    };
  });
}

/** The binary's size, the Node it was made from, and its checksum file. */
function sizeRow(index: number, innerNode: string | undefined): Row {
  const mib = (file: string) => `${(statSync(file).size / 2 ** 20).toFixed(1)} MiB`;
  const sum = `${BINARY}.sha256`;
  return {
    id: `j${index}`,
    what: 'plants-linux-x64 size',
    median: mib(BINARY),
    spread: '',
    ratio: [
      innerNode === undefined ? undefined : `official node ${mib(innerNode)} (stripped in the binary)`,
      existsSync(sum) ? 'its sha256 in plants-linux-x64.sha256' : 'no .sha256 beside it',
    ]
      .filter((part) => part !== undefined)
      .join('; '),
    goal: '',
    result: '',
  };
}

export const binary: RowGroup = { key: 'j', title: 'the single executable', rows: binaryRows };
