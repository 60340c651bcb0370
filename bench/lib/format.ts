/** Rows and the table they make, numbers as the table shows them, progress on stderr. */

/** One line of the table. A row group returns a list of these. */
export interface Row {
  id: string;
  what: string;
  median: string;
  spread: string;
  ratio: string;
  goal: string;
  result: string;
  /** Server rows: CPU time of the server process per request (less swayed by a busy machine). */
  cpu?: string;
}

/** A group of rows, chosen with BENCH_ROWS by its key; one module of bench/rows/ each. */
export interface RowGroup {
  key: string;
  title: string;
  rows(): Promise<Row[]>;
}

export const format = {
  ms: (value: number) => `${value.toFixed(0)} ms`,
  rate: (value: number, unit: string) => `${Math.round(value).toLocaleString('en-US')} ${unit}`,
  ratio: (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}` : 'n/a'),
  times: (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a'),
  spread: (values: readonly number[], show: (value: number) => string) =>
    values.length < 2 ? '' : `${show(Math.min(...values))} – ${show(Math.max(...values))}`,
};

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function verdict(met: boolean | undefined): string {
  return met === undefined ? '' : met ? 'yes' : 'NO';
}

/** A row that carries only a note in place of figures (skipped, not available). */
export function noteRow(id: string, what: string, note: string, goal = ''): Row {
  return { id, what, median: note, spread: '', ratio: '', goal, result: '' };
}

export function progress(text: string): void {
  process.stderr.write(`  … ${text}\n`);
}

export function table(rows: readonly Row[]): string {
  const header: Row = {
    id: '',
    what: 'what',
    median: 'median',
    spread: 'min – max',
    ratio: 'ratio',
    goal: 'goal',
    result: 'goal met?',
    cpu: 'server CPU/req',
  };
  const columns: Array<keyof Row> = ['id', 'what', 'median', 'spread', 'ratio', 'goal', 'result', 'cpu'];
  const cell = (row: Row, column: keyof Row) => row[column] ?? '';
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => cell(row, column).length)));
  const line = (row: Row) =>
    `| ${columns.map((column, index) => cell(row, column).padEnd(widths[index] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
