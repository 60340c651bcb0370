import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, resultLines } from '../helpers/cli.js';
import { reply, startFixtureServer } from '../helpers/fixture-server.js';
import { freePort } from '../helpers/ports.js';
import { readStoredPlants, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// Bulk adds through the real CLI into a real `plants serve` store (in this process, on a port).
const store = useTestStore();
const user = useTempUser(store, { scope: 'test' });

const storedIds = () => new Set(readStoredPlants(store.dbPath).map((row) => row.id));
let nextId = 1_000_000n;
const freshIds = (count: number) => Array.from({ length: count }, () => nextId++);

describe('plants add --file with many records', () => {
  it('NDJSON: one result line per record, in order, with line numbers; partial failure is exit 1', async () => {
    const [a, b] = freshIds(2) as [bigint, bigint];
    const big = 9223372036854775807n - nextId;
    const input = [
      `{"id":${a},"name":"Fern"}`,
      '',
      `{"id":${b},"name":""}`,
      'not json at all',
      `{"id":${a},"name":"Again"}`,
      `{"id":"${b}","name":"String id"}`,
      `{"id":${big},"name":"Big","tag":"t"}`,
    ].join('\n');
    const result = await user.run(['add', '--file', '-', '--concurrency', '4'], { input });
    expect(result.code).toBe(1);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => line.line)).toEqual([1, 3, 4, 5, 6, 7]);
    expect(lines.map((line) => line.sent)).toEqual([true, false, false, true, false, true]);
    expect(lines.map((line) => line.status)).toEqual([200, undefined, undefined, 409, undefined, 200]);
    expect(lines[1]?.fields).toEqual(['name']);
    expect(lines[4]?.fields).toEqual(['id']);
    expect(result.stdout).toContain(`"plant":{"id":${big},"name":"Big","tag":"t"}`);
    expect(result.stdout.split('\n')[3]).toContain('"error":{"error":409');
    // Not a TTY, not all added: the summary goes to stderr, stdout holds only results.
    expect(result.stderr).toContain('Added 2 of 6 plants');
    expect(result.stderr).toContain('line 3: invalid plant: name: must not be empty');
    const ids = storedIds();
    expect(ids.has(a)).toBe(true);
    expect(ids.has(big)).toBe(true);
    expect(ids.has(b)).toBe(false);
  });

  it('a JSON array, --tag applying to every record: exit 0, the summary alone on stderr', async () => {
    const ids = freshIds(3);
    const file = path.join(user.dir, 'plants.json');
    writeFileSync(
      file,
      JSON.stringify(
        ids.map((id) => ({ id: Number(id), name: `p${id}` })),
        null,
        2,
      ),
    );
    const result = await user.run(['add', '--file', file, '--tag', 'herb']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^✓ Added 3 of 3 plants in [\d.]+ s \(\d+\/s\): 0 already there, [^\n]*\n$/);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => (line.plant as { id: number }).id)).toEqual(ids.map(Number));
    expect(lines.every((line) => (line.plant as { tag: string }).tag === 'herb')).toBe(true);
    expect(lines.map((line) => line.line)).toEqual([2, 6, 10]);
  });

  it('refuses --id with many records, and a missing file, sending nothing (exit 2)', async () => {
    const before = storedIds().size;
    const withId = await user.run(['add', '--file', '-', '--id', '5'], {
      input: '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n',
    });
    expect(withId.code).toBe(2);
    expect(withId.stderr).toContain('--id cannot apply to every record');
    const missing = await user.run(['add', '--file', path.join(user.dir, 'nope.ndjson')]);
    expect(missing.code).toBe(2);
    expect(storedIds().size).toBe(before);
  });

  it('--fail-fast stops reading at the first record not added', async () => {
    const [a, b, c] = freshIds(3) as [bigint, bigint, bigint];
    const input = `{"id":${a},"name":"a"}\n{"id":${a},"name":"dup"}\n{"id":${b},"name":"b"}\n{"id":${c},"name":"c"}\n`;
    const result = await user.run(['add', '--file', '-', '--fail-fast', '--concurrency', '1'], { input });
    expect(result.code).toBe(1);
    expect(resultLines(result.stdout).map((line) => line.status)).toEqual([200, 409]);
    expect(result.stderr).toContain('--fail-fast');
    const ids = storedIds();
    expect(ids.has(b) || ids.has(c)).toBe(false);
  });

  it('stops at a refused token (exit 4) and at a server that is not there (exit 3)', async () => {
    const input = `${freshIds(5)
      .map((id) => `{"id":${id},"name":"x"}`)
      .join('\n')}\n`;
    const refused = await user.run(['add', '--file', '-', '--concurrency', '1'], {
      env: { PLANTS_TOKEN: 'wrong-token' },
      input,
    });
    expect(refused.code).toBe(4);
    expect(resultLines(refused.stdout)).toHaveLength(1);
    expect(refused.stderr).toContain('Stopped: the rest was not sent.');
    expect(refused.stderr).toContain('plants: the server answered 401');
    // A port nobody listens on for the rest of the run (a closed server's, the kernel may give to another test's server).
    const gone = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await user.run(['add', '--file', '-', '--concurrency', '1', '--retries', '0'], {
      env: { PLANTS_BASE_URL: gone },
      input,
    });
    expect(unreachable.code).toBe(3);
    expect(resultLines(unreachable.stdout)[0]).toMatchObject({ line: 1, sent: false });
  });

  it('retries a 503 with Retry-After and reports the attempts', async () => {
    const flaky = await startFixtureServer();
    let calls = 0;
    flaky.respond((request, response) => {
      calls++;
      if (calls === 1) {
        response.writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' });
        response.end('{"error":503,"message":"busy"}');
        return;
      }
      reply(200, request.body)(request, response);
    });
    try {
      const result = await user.run(['add', '--file', '-'], {
        env: { PLANTS_BASE_URL: flaky.url },
        input: '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n',
      });
      expect(result.code).toBe(0);
      const lines = resultLines(result.stdout);
      expect(lines.map((line) => line.status)).toEqual([200, 200]);
      expect(lines.map((line) => line.attempts)).toEqual([2, undefined]);
    } finally {
      await flaky.close();
    }
  });

  it('SIGINT: stops reading, reports what was in flight, prints the summary, exits 130', async () => {
    const ids = freshIds(100_000);
    const running = user.spawn(['add', '--file', '-', '--concurrency', '8'], { timeoutMs: 60_000 });
    const { child } = running;
    // Feed the first half, keep stdin open (a producer still running), interrupt once results flow.
    child.stdin.write(
      `${ids
        .slice(0, 50_000)
        .map((id) => `{"id":${id},"name":"s"}`)
        .join('\n')}\n`,
    );
    while (running.stdout.split('\n').length < 200) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const { code, stdout, stderr } = await running.exited;
    child.stdin.destroy();
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted');
    const reported = resultLines(stdout);
    expect(reported.length).toBeLessThan(50_000);
    // Every reported record is in the store, and nothing is in the store that was not reported.
    const stored = storedIds();
    const reportedIds = reported.map((line) => BigInt((line.plant as { id: number }).id));
    expect(reportedIds.every((id) => stored.has(id))).toBe(true);
    const firstUnreported = ids[reported.length] as bigint;
    expect(stored.has(firstUnreported)).toBe(false);
    expect(reported.map((line) => line.line)).toEqual(reported.map((_line, index) => index + 1));
  });

  it('streams a large generated file in flat memory', async () => {
    const count = 60_000;
    const file = path.join(user.dir, 'big.ndjson');
    const ids = freshIds(count);
    writeFileSync(file, `${ids.map((id) => `{"id":${id},"name":"plant ${id}","tag":"bulk"}`).join('\n')}\n`);
    const running = user.spawn(['add', '--file', file], { timeoutMs: 120_000 });
    const { child } = running;
    let peakKb = 0;
    const sampler = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // The process has just ended.
      }
    }, 25);
    const { code, stdout } = await running.exited;
    clearInterval(sampler);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(count);
    expect(lines[count - 1]).toContain(`"line":${count},`);
    // The file is ~3 MB of records and ~5 MB of results; held whole they would show. Flat: well under 120 MB.
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb / 1024).toBeLessThan(120);
  }, 120_000);
});

describe('plants add --file keeps V8 small on every Node (src/entry/bulk-heap.ts)', () => {
  it("holds the young generation at 8 MB, whether V8's flags can be given at start (execve) or only while running", async () => {
    const count = 20_000;
    const file = path.join(user.dir, 'young.ndjson');
    const ids = freshIds(count);
    writeFileSync(file, `${ids.map((id) => `{"id":${id},"name":"plant ${id}"}`).join('\n')}\n`);
    const probe = path.join(user.dir, 'heap.json');
    const result = await user.run(['add', '--file', file], {
      env: {
        NODE_OPTIONS: `--import=${path.join(projectRoot, 'test', 'helpers', 'heap-probe.mjs')}`,
        PLANTS_TEST_HEAP_PROBE: probe,
      },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // V8's default lets it grow to 32 MB on Node 20 and 22 (and 128 MB from 24) within these records.
    const { young, node } = JSON.parse(readFileSync(probe, 'utf8')) as { young: number; node: string };
    expect(node).toBe(process.version);
    expect(young).toBeGreaterThan(0);
    expect(young / 2 ** 20).toBeLessThanOrEqual(8);
  }, 120_000);
});

describe('plants add --file --json with many records', () => {
  it('prints NDJSON results, one line per record, as without --json (README: not one document)', async () => {
    const [a, b] = freshIds(2) as [bigint, bigint];
    const input = `{"id":${a},"name":"Fern"}\n{"id":${b},"name":"Ivy"}\n`;
    const result = await user.run(['add', '--file', '-', '--json'], { input });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toHaveLength(3);
    expect(resultLines(result.stdout).map((line) => [line.line, line.status])).toEqual([
      [1, 200],
      [2, 200],
    ]);
  });
});
