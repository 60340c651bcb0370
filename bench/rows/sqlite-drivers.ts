/**
 * k. The SQLite store on Node's node:sqlite against better-sqlite3 13, on Node 24 and 26 (the
 * lines where node:sqlite keeps every name: Node 22's reads text only up to its first U+0000).
 * Each load runs in a process of its own (sqlite-driver-load.mjs), the two drivers alternately,
 * in a fresh folder; the ratio is node:sqlite's CPU time over
 * better-sqlite3's, medians of the rounds. Issue 38: the second native package stays only where it
 * wins by a margin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { nodeOfLine } from '../../test/helpers/nodes.js';
import { bench, quick, work } from '../lib/context.js';
import { format, median, progress, type Row, type RowGroup } from '../lib/format.js';
import { run } from '../lib/processes.js';

const LOADS = [
  { load: 'group-commit', count: quick ? 5_000 : 20_000, what: 'adds, 64 at a time, durability full' },
  { load: 'bulk', count: quick ? 50_000 : 200_000, what: 'adds, 512 at a time, durability normal' },
  { load: 'list', count: quick ? 100_000 : 1_000_000, what: 'plants read in pages of 1,000' },
] as const;
const DRIVERS = ['better-sqlite3', 'node:sqlite'] as const;
const ROUNDS = quick ? 1 : 3;

async function measure(node: string, driver: string, load: string, count: number): Promise<number> {
  const folder = mkdtempSync(path.join(work, 'sqlite-'));
  try {
    const script = path.join(bench, 'sqlite-driver-load.mjs');
    const result = await run(node, [script, driver, load, folder, String(count)], { timeoutMs: 600_000 });
    if (result.code !== 0) throw new Error(`${driver} ${load} failed:\n${result.stderr.slice(-2000)}`);
    return (JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as { cpuMs: number }).cpuMs;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function sqliteDriverRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const line of ['24', '26']) {
    const binary = nodeOfLine(line);
    if (binary === undefined) continue;
    for (const [index, { load, count, what }] of LOADS.entries()) {
      progress(`k: Node ${binary.version}, ${load}`);
      const cpu: Record<string, number[]> = { 'better-sqlite3': [], 'node:sqlite': [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const driver of round % 2 === 0 ? DRIVERS : [...DRIVERS].reverse()) {
          cpu[driver]?.push(await measure(binary.node, driver, load, count));
        }
      }
      const better = median(cpu['better-sqlite3'] ?? []);
      const builtIn = median(cpu['node:sqlite'] ?? []);
      rows.push({
        id: `k${line}.${index + 1}`,
        what: `Node ${binary.version}, ${count.toLocaleString('en-US')} ${what}: CPU, node:sqlite / better-sqlite3 13`,
        median: `${format.ms(builtIn)} / ${format.ms(better)}`,
        spread: '',
        ratio: format.times(builtIn / better),
        goal: '',
        result: '',
      });
    }
  }
  return rows;
}

export const sqliteDrivers: RowGroup = { key: 'k', title: 'SQLite drivers', rows: sqliteDriverRows };
