import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { binPath, type CliProcess, type CliResult, resultLines } from '../helpers/cli.js';
import { expectOneLineError, rssKb } from '../helpers/reliability.js';
import { readStoredPlants, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// What `plants add --file` reads (issues 17 and 19): jq's output, empty input, arrays told
// apart by index, records bounded in size whatever the input, and bytes that are not UTF-8
// refused rather than changed. The real CLI into a real `plants serve` store.
const store = useTestStore();
const user = useTempUser(store, { scope: 'test', env: { NO_COLOR: '1' } });

const stored = () => new Map(readStoredPlants(store.dbPath).map((row) => [row.id, row]));
let nextId = 6_000_000_000_000_000_000n;
const freshIds = (count: number) => Array.from({ length: count }, () => nextId++);

/** Runs it to the end, sampling its peak RSS (KiB). */
async function withPeakRss(running: CliProcess): Promise<CliResult & { peakKb: number }> {
  let peakKb = 0;
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(running.child.pid ?? 0) ?? 0);
  }, 20);
  const result = await running.exited;
  clearInterval(sampler);
  return { ...result, peakKb };
}

describe('plants add --file: the layouts people pipe in', () => {
  it("jq's default output (pretty-printed values one after another) is read as records", async () => {
    const [a, b, c] = freshIds(3) as [bigint, bigint, bigint];
    const input = `{\n  "id": ${a},\n  "name": "Fern"\n}\n{\n  "id": ${b},\n  "name": "Ivy",\n  "tag": "climber"\n}\n{\n  "id": ${c},\n  "name": "Moss"\n}\n`;
    const result = await user.run(['add', '--file', '-'], { input });
    expect(result.code, result.stderr).toBe(0);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => [line.line, line.outcome])).toEqual([
      [1, 'added'],
      [5, 'added'],
      [10, 'added'],
    ]);
    expect(stored().get(b)?.tag).toBe('climber');
  });

  it.each([
    ['an empty array', '[]'],
    ['an empty array, pretty', '[\n]\n'],
    ['an empty stream', ''],
    ['blank lines', '\n\n  \n'],
  ])('%s is zero records: exit 0, nothing on stdout, and stderr says so', async (_name, input) => {
    const before = stored().size;
    const result = await user.run(['add', '--file', '-'], { input });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('0 records read: the input held no plants, so nothing was sent.\n');
    expect(stored().size).toBe(before);
  });

  it('a one-record array takes --id and --name', async () => {
    const [id] = freshIds(1) as [bigint];
    const result = await user.run(['add', '--file', '-', '--id', String(id), '--name', 'Given'], {
      input: '[{"id": 1, "name": "From the file", "tag": "kept"}]',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(resultLines(result.stdout)).toEqual([
      {
        line: 1,
        index: 0,
        sent: true,
        status: 200,
        plant: { id: Number(id), name: 'Given', tag: 'kept' },
        outcome: 'added',
      },
    ]);
    expect(stored().get(id)?.name).toBe('Given');
  });

  it('records of an array on one line are told apart by index, in results and in the summary', async () => {
    const [a, b] = freshIds(2) as [bigint, bigint];
    const input = `[{"id":${a},"name":"a"},{"id":${b},"name":""},{"id":${b},"name":"b"},{"id":${a},"name":"again"}]`;
    const result = await user.run(['add', '--file', '-', '--concurrency', '1'], { input });
    expect(result.code).toBe(1);
    expect(resultLines(result.stdout).map((line) => [line.line, line.index, line.outcome])).toEqual([
      [1, 0, 'added'],
      [1, 1, 'invalid'],
      [1, 2, 'added'],
      [1, 3, 'rejected'],
    ]);
    expect(result.stderr).toContain('  line 1, index 1: invalid plant: name: must not be empty');
    expect(result.stderr).toContain(`  line 1, index 3: the server answered 409: a plant with id ${a} already exists`);
  });
});

describe('plants add --file: memory stays flat on any input', () => {
  it('/dev/zero: refused at once with one line naming where, exit 2', async () => {
    const running = user.spawn(['add', '--file', '/dev/zero'], { timeoutMs: 60_000 });
    running.child.stdin.end();
    const result = await withPeakRss(running);
    expect(result.code).toBe(2);
    const [line] = expectOneLineError(result.stderr);
    expect(line).toBe(
      'plants: /dev/zero is too long at line 1: more than 64 KiB, longer than any NewPlant can be (not read); nothing was sent',
    );
    expect(result.peakKb).toBeGreaterThan(0);
    expect(result.peakKb / 1024).toBeLessThan(150);
  }, 60_000);

  it('a 16 MiB line among records: that record invalid, naming its line, the others added', async () => {
    const [a, b] = freshIds(2) as [bigint, bigint];
    const file = path.join(user.dir, 'long-line.ndjson');
    const fd = openSync(file, 'w');
    writeSync(fd, `{"id":${a},"name":"before"}\n{"id":1,"name":"`);
    const block = 'x'.repeat(1024 * 1024);
    for (let mib = 0; mib < 16; mib++) writeSync(fd, block);
    writeSync(fd, `"}\n{"id":${b},"name":"after"}\n`);
    closeSync(fd);
    const running = user.spawn(['add', '--file', file], { timeoutMs: 60_000 });
    running.child.stdin.end();
    const result = await withPeakRss(running);
    expect(result.code).toBe(1);
    expect(resultLines(result.stdout).map((line) => [line.line, line.outcome])).toEqual([
      [1, 'added'],
      [2, 'invalid'],
      [3, 'added'],
    ]);
    expect(result.stderr).toContain('  line 2: too long: more than 64 KiB, longer than any NewPlant can be (not read)');
    expect(result.peakKb).toBeGreaterThan(0);
    expect(result.peakKb / 1024).toBeLessThan(150);
  }, 60_000);

  it('a 128 MiB line on stdin, and an array element as long: refused unread, memory flat', async () => {
    const [a, b] = freshIds(2) as [bigint, bigint];
    const running = user.spawn(['add', '--file', '-'], { timeoutMs: 120_000 });
    const stdin = running.child.stdin;
    const write = (text: string) =>
      new Promise<void>((resolve) => {
        if (stdin.write(text)) resolve();
        else stdin.once('drain', () => resolve());
      });
    const measuring = withPeakRss(running);
    await write(`[{"id":${a},"name":"before"},\n{"id":2,"name":"`);
    const block = 'y'.repeat(1024 * 1024);
    for (let mib = 0; mib < 128 && running.child.exitCode === null; mib++) await write(block);
    await write(`"},\n{"id":${b},"name":"after"}]\n`);
    stdin.end();
    const result = await measuring;
    expect(result.code, result.stderr).toBe(1);
    expect(resultLines(result.stdout).map((line) => [line.line, line.index, line.outcome])).toEqual([
      [1, 0, 'added'],
      [2, 1, 'invalid'],
      [3, 2, 'added'],
    ]);
    expect(result.peakKb).toBeGreaterThan(0);
    expect(result.peakKb / 1024).toBeLessThan(150);
  }, 120_000);
});

describe('plants add: bytes that are not UTF-8 are refused, not changed', () => {
  it('one record in Latin-1: exit 2 naming the input, nothing stored', async () => {
    const [id] = freshIds(1) as [bigint];
    const file = path.join(user.dir, 'latin1.json');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from(`{"id":${id},"name":"Caf`), Buffer.from([0xe9]), Buffer.from('"}\n')]),
    );
    const result = await user.run(['add', '--file', file]);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)[0]).toBe(
      `plants: ${file} is not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)`,
    );
    expect(stored().has(id)).toBe(false);
  });

  it('many records: the one with bytes that are not UTF-8 is invalid, the rest added', async () => {
    const [a, b, c] = freshIds(3) as [bigint, bigint, bigint];
    const input = Buffer.concat([
      Buffer.from(`{"id":${a},"name":"Fern"}\n{"id":${b},"name":"Caf`),
      Buffer.from([0xe9]),
      // A valid multi-byte character and U+FFFD itself are text, and stay.
      Buffer.from(`"}\n{"id":${c},"name":"Caf\u00e9 \ufffd"}\n`),
    ]);
    const running = user.spawn(['add', '--file', '-']);
    running.child.stdin.end(input);
    const result = await running.exited;
    expect(result.code).toBe(1);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => [line.line, line.outcome])).toEqual([
      [1, 'added'],
      [2, 'invalid'],
      [3, 'added'],
    ]);
    expect((lines[1]?.error as { message?: string } | undefined)?.message).toBe(
      'not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)',
    );
    expect(stored().has(b)).toBe(false);
    expect(stored().get(c)?.name).toBe('Caf\u00e9 \ufffd');
  });

  it.each([
    ['--name', ["--name $'\\xff'"]],
    ['--tag', ["--name Fern --tag $'Caf\\xe9'"]],
    ['--name', ["--name=$'\\xff\\xfe'"]],
  ])('%s with bytes that are not UTF-8: exit 2 naming the flag, nothing sent', async (flag, [rest]) => {
    const [id] = freshIds(1) as [bigint];
    const child = spawn('bash', ['-c', `exec "$0" "$1" add --id ${id} ${rest}`, process.execPath, binPath], {
      env: { PATH: process.env.PATH ?? '', HOME: user.dir, LANG: 'C.UTF-8', ...user.env },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(expectOneLineError(stderr)[0]).toBe(
      `plants: ${flag} is not UTF-8 text: it holds bytes that are not UTF-8 (refused, not changed)`,
    );
    expect(stored().has(id)).toBe(false);
  });

  it('--name holding U+FFFD as text is taken as given', async () => {
    const [id] = freshIds(1) as [bigint];
    const result = await user.run(['add', '--id', String(id), '--name', 'odd \ufffd name']);
    expect(result.code, result.stderr).toBe(0);
    expect(stored().get(id)?.name).toBe('odd \ufffd name');
  });
});

describe('plants add: input that is not text is refused before the first record', () => {
  const ndjson = '{"id":1,"name":"Fern"}\n{"id":2,"name":"Ivy"}\n';
  // Random bytes drawn from a fixed seed (mulberry32), so the case is the same every run.
  const seededBytes = (count: number) => {
    let state = 28;
    return Buffer.from(
      Array.from({ length: count }, () => {
        state = (state + 0x6d2b79f5) | 0;
        let t = Math.imul(state ^ (state >>> 15), 1 | state);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) & 0xff;
      }),
    );
  };
  it.each([
    [
      'the node executable',
      () => readFileSync(process.execPath),
      /is a program \(ELF\), not text; nothing was sent: plants reads JSON text/,
    ],
    [
      'random bytes',
      () => seededBytes(65_536),
      /is binary data, not text \(a control byte 0x[0-9a-f]{2} at byte \d+\); nothing was sent: plants reads JSON text/,
    ],
    [
      'UTF-16 with a BOM',
      () => Buffer.from(`\ufeff${ndjson}`, 'utf16le'),
      /is UTF-16 text \(it starts with a UTF-16 byte-order mark\); nothing was sent: convert it first: iconv -f UTF-16 -t UTF-8 \S+ \| plants add --file -$/,
    ],
    [
      'gzip',
      () => gzipSync(ndjson),
      /is gzip-compressed; nothing was sent: decompress it first: gunzip -c \S+ \| plants add --file -$/,
    ],
    [
      'CSV',
      () => Buffer.from('id,name,tag\n1,Fern,herb\n2,Ivy,\n'),
      /is CSV \(comma- or tab-separated values\), not JSON; nothing was sent: plants reads JSON text: a NewPlant object, a JSON array of them, or NDJSON \(one per line\)$/,
    ],
  ])('%s: exit 2, one line saying what it is and what to do, nothing sent', async (_name, bytes, said) => {
    const file = path.join(user.dir, 'input');
    writeFileSync(file, bytes());
    const before = store.logLines.length;
    const result = await user.run(['add', '--file', file]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    const [line] = expectOneLineError(result.stderr);
    expect(line).toMatch(new RegExp(`^plants: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} ${said.source}`));
    expect(store.logLines.slice(before)).toEqual([]);
  });

  it('gzip on stdin: refused the same way, naming stdin', async () => {
    const running = user.spawn(['add', '--file', '-']);
    running.child.stdin.end(gzipSync(ndjson));
    const result = await running.exited;
    expect(result.code, result.stderr).toBe(2);
    expect(expectOneLineError(result.stderr)[0]).toBe(
      'plants: stdin is gzip-compressed; nothing was sent: decompress it first: gunzip -c FILE | plants add --file -',
    );
  });
});
