import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultLines } from '../helpers/cli.js';
import { startDroppingProxy } from '../helpers/dropping-proxy.js';
import { freePort } from '../helpers/ports.js';
import { useServeProcesses } from '../helpers/serve-process.js';
import { readStoredPlants, TEST_TOKEN, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// Imports that can be run again (issue 15) and answers that never came (issue 17, item 8),
// through the real CLI into a real `plants serve` store, with a proxy between them where the
// network must fail.
const store = useTestStore();
const user = useTempUser(store, { scope: 'test', env: { NO_COLOR: '1' } });
const serves = useServeProcesses();

const stored = () => new Map(readStoredPlants(store.dbPath).map((row) => [row.id, row]));
let nextId = 5_000_000_000_000_000_000n;
const freshIds = (count: number) => Array.from({ length: count }, () => nextId++);
const ndjson = (ids: bigint[], name = (id: bigint) => `plant ${id}`) =>
  `${ids.map((id) => `{"id":${id},"name":"${name(id)}","tag":"rerun"}`).join('\n')}\n`;

describe('plants add --skip-existing: an import run again', () => {
  it('a finished import run again: exit 0, every line existing, the store unchanged', async () => {
    const ids = freshIds(40);
    const input = ndjson(ids);
    const first = await user.run(['add', '--file', '-', '--concurrency', '8'], { input });
    expect(first.code, first.stderr).toBe(0);
    const before = stored();

    const again = await user.run(['add', '--file', '-', '--concurrency', '8', '--skip-existing'], { input });
    expect(again.code, again.stderr).toBe(0);
    const lines = resultLines(again.stdout);
    expect(lines).toHaveLength(40);
    expect(lines.map((line) => line.outcome)).toEqual(ids.map(() => 'existing'));
    expect(lines[0]).toMatchObject({ line: 1, sent: true, status: 409, outcome: 'existing' });
    expect(again.stdout.split('\n')[0]).toContain(`"plant":{"id":${ids[0]},"name":"plant ${ids[0]}","tag":"rerun"}`);
    expect(stored()).toEqual(before);

    // Without the flag the same run is what it was: 409s, exit 1.
    const plain = await user.run(['add', '--file', '-', '--concurrency', '8'], { input });
    expect(plain.code).toBe(1);
    expect(resultLines(plain.stdout).every((line) => line.status === 409 && line.outcome === 'rejected')).toBe(true);
  });

  it('a re-run that stopped half-way: the rest added, the first half existing, exit 0 and a summary that counts both', async () => {
    const ids = freshIds(20);
    await user.run(['add', '--file', '-'], { input: ndjson(ids.slice(0, 10)) });
    const again = await user.run(['add', '--file', '-', '--skip-existing', '--concurrency', '4'], {
      input: `${ndjson(ids)}not json\n`,
    });
    expect(again.code).toBe(1);
    const lines = resultLines(again.stdout);
    expect(lines.map((line) => line.outcome)).toEqual([
      ...ids.slice(0, 10).map(() => 'existing'),
      ...ids.slice(10).map(() => 'added'),
      'invalid',
    ]);
    expect(again.stderr).toMatch(
      /Added 10 of 21 plants in [\d.]+ s \(\d+\/s\): 10 already there, 0 conflicting, 0 rejected by the server, 1 invalid, 0 not sent \(no answer\), 0 unknown \(sent, may have been added\)/,
    );
  });

  it('one record stored with other data: exit 1, its line shows both versions', async () => {
    const ids = freshIds(5);
    await user.run(['add', '--file', '-'], { input: ndjson(ids) });
    const changed = ids[2] as bigint;
    const input = ndjson(ids, (id) => (id === changed ? 'renamed' : `plant ${id}`));
    const result = await user.run(['add', '--file', '-', '--skip-existing', '--concurrency', '2'], { input });
    expect(result.code).toBe(1);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => line.outcome)).toEqual(['existing', 'existing', 'conflict', 'existing', 'existing']);
    const conflict = result.stdout.split('\n')[2] ?? '';
    expect(conflict).toContain(`"sent_plant":{"id":${changed},"name":"renamed","tag":"rerun"}`);
    expect(conflict).toContain(`"stored_plant":{"id":${changed},"name":"plant ${changed}","tag":"rerun"}`);
    expect(lines[2]).toMatchObject({ line: 3, sent: true, status: 409 });
    expect(result.stderr).toContain('1 conflicting');
    expect(result.stderr).toContain(
      `line 3: the server answered 409: a plant with id ${changed} already exists, with other data than was sent`,
    );
    expect(stored().get(changed)?.name).toBe(`plant ${changed}`);
  });

  it('reads nothing back when the 409 carries the stored plant: existing and conflict from the 409 alone', async () => {
    const ids = freshIds(12);
    await user.run(['add', '--file', '-'], { input: ndjson(ids) });
    const changed = ids[5] as bigint;
    const proxy = await startDroppingProxy(store.url);
    try {
      const result = await user.run(['add', '--file', '-', '--skip-existing', '--concurrency', '4'], {
        env: { PLANTS_BASE_URL: proxy.url },
        input: ndjson(ids, (id) => (id === changed ? 'renamed' : `plant ${id}`)),
      });
      expect(result.code).toBe(1);
      const lines = resultLines(result.stdout);
      expect(lines.map((line) => line.outcome)).toEqual(ids.map((id) => (id === changed ? 'conflict' : 'existing')));
      expect(result.stdout.split('\n')[0]).toContain(`"plant":{"id":${ids[0]},"name":"plant ${ids[0]}","tag":"rerun"}`);
      const conflict = result.stdout.split('\n')[5] ?? '';
      expect(conflict).toContain(`"sent_plant":{"id":${changed},"name":"renamed","tag":"rerun"}`);
      expect(conflict).toContain(`"stored_plant":{"id":${changed},"name":"plant ${changed}","tag":"rerun"}`);
      // Every answer was settled from the 409's own plant: not one GET /plants/{id}.
      expect(proxy.reads).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("reads back as before when a store's 409 has the Error record only", async () => {
    const ids = freshIds(6);
    await user.run(['add', '--file', '-'], { input: ndjson(ids) });
    const proxy = await startDroppingProxy(store.url, { plainConflict: true });
    try {
      const result = await user.run(['add', '--file', '-', '--skip-existing', '--concurrency', '2'], {
        env: { PLANTS_BASE_URL: proxy.url },
        input: ndjson(ids),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(resultLines(result.stdout).map((line) => line.outcome)).toEqual(ids.map(() => 'existing'));
      expect(result.stdout.split('\n')[0]).toContain(`"plant":{"id":${ids[0]},"name":"plant ${ids[0]}","tag":"rerun"}`);
      expect(proxy.reads).toBe(ids.length);
    } finally {
      await proxy.close();
    }
  });

  it('one record: already there exactly as given is exit 0; with other data, exit 1 and both versions', async () => {
    const [id] = freshIds(1) as [bigint];
    await user.run(['add', '--id', String(id), '--name', 'Fern']);
    const same = await user.run(['add', '--id', String(id), '--name', 'Fern', '--skip-existing']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(`✓ Plant ${id} is already there, exactly as given: Fern\n`);
    const other = await user.run(['add', '--id', String(id), '--name', 'Ivy', '--skip-existing', '--json']);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({ error: 409 });
    expect(other.stdout).toContain(`"sent_plant":{"id":${id},"name":"Ivy"}`);
    expect(other.stdout).toContain(`"stored_plant":{"id":${id},"name":"Fern"}`);
    expect(other.stderr).toContain(`stored: {"id":${id},"name":"Fern"}`);
  });
});

describe('a 409 on a retry is settled by reading back', () => {
  it('bulk: the first answer dropped after the store applied it: added, confirmed by reading back, exit 0', async () => {
    const ids = freshIds(6);
    const dropIds = new Set([String(ids[1]), String(ids[4])]);
    const seen = new Set<string>();
    const proxy = await startDroppingProxy(store.url, {
      dropAnswer: (body) => {
        const id = /"id":(\d+)/.exec(body)?.[1] ?? '';
        if (!dropIds.has(id) || seen.has(id)) return false;
        seen.add(id);
        return true;
      },
    });
    try {
      const result = await user.run(['add', '--file', '-', '--concurrency', '2'], {
        env: { PLANTS_BASE_URL: proxy.url },
        input: ndjson(ids),
      });
      expect(proxy.dropped).toBe(2);
      expect(result.code, result.stderr).toBe(0);
      const lines = resultLines(result.stdout);
      expect(lines.map((line) => line.outcome)).toEqual(ids.map(() => 'added'));
      expect(lines[1]).toMatchObject({ line: 2, sent: true, confirmed: 'by reading back', attempts: 2 });
      expect(lines[1]?.status).toBeUndefined();
      expect(result.stdout.split('\n')[1]).toContain(`"plant":{"id":${ids[1]},"name":"plant ${ids[1]}","tag":"rerun"}`);
      expect(stored().get(ids[4] as bigint)?.name).toBe(`plant ${ids[4]}`);
    } finally {
      await proxy.close();
    }
  });

  it('one record: confirmed, exit 0, and it says so on stderr', async () => {
    const [id] = freshIds(1) as [bigint];
    let first = true;
    const proxy = await startDroppingProxy(store.url, {
      dropAnswer: () => {
        const drop = first;
        first = false;
        return drop;
      },
    });
    try {
      const result = await user.run(['add', '--id', String(id), '--name', 'Moss'], {
        env: { PLANTS_BASE_URL: proxy.url },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`✓ Added plant ${id}: Moss\n`);
      expect(result.stderr).toContain('Confirmed by reading it back after 2 attempts');
    } finally {
      await proxy.close();
    }
  });

  it.each([404, 405] as const)(
    'a store with no GET for plants (%i): said once, the 409 kept as today',
    async (noGet) => {
      const ids = freshIds(3);
      const seen = new Set<string>();
      const proxy = await startDroppingProxy(store.url, {
        // The first answer for each id: its retry then meets the 409 of its own first attempt.
        dropAnswer: (body) => {
          const id = /"id":(\d+)/.exec(body)?.[1] ?? '';
          if (seen.has(id)) return false;
          seen.add(id);
          return true;
        },
        noGet,
      });
      try {
        const result = await user.run(['add', '--file', '-', '--concurrency', '1', '--retries', '1'], {
          env: { PLANTS_BASE_URL: proxy.url },
          input: ndjson(ids),
        });
        // Each retry meets 409, and nothing can be read back.
        expect(result.code).toBe(1);
        const lines = resultLines(result.stdout);
        expect(lines.map((line) => [line.status, line.outcome])).toEqual(ids.map(() => [409, 'rejected']));
        expect(lines[0]?.message).toContain('after a retry: the first attempt may have added it');
        const told = result.stderr.split('\n').filter((line) => line.includes('does not answer GET /plants/{id}'));
        expect(told).toHaveLength(1);
        // Told once, then not asked again.
        expect(proxy.reads).toBe(1);
      } finally {
        await proxy.close();
      }
    },
  );
});

describe('sent, no answer: never reported as not sent', () => {
  it('bulk: the store gone after applying a request: unknown, counted apart, exit 3', async () => {
    const ids = freshIds(3);
    const proxy = await startDroppingProxy(store.url, { dropAnswer: () => true, refuseAfterDrop: true });
    const result = await user.run(['add', '--file', '-', '--concurrency', '1', '--retries', '2'], {
      env: { PLANTS_BASE_URL: proxy.url },
      input: ndjson(ids),
    });
    expect(result.code).toBe(3);
    const [first] = resultLines(result.stdout);
    expect(first).toMatchObject({ line: 1, sent: true, outcome: 'unknown', attempts: 3 });
    expect((first?.error as { message?: string } | undefined)?.message).toMatch(
      new RegExp(
        `^sent, no answer: plant ${ids[0]} may or may not have been added \\(cannot reach .*: connection refused\\)$`,
      ),
    );
    // The run goes on after one record with no answer (issue 28): the next is refused, never
    // sent, and that stops it.
    expect(result.stderr).toContain('1 not sent (no answer), 1 unknown (sent, may have been added)');
    expect(result.stderr).toContain(`\`plants get ${ids[0]}\` shows whether it is in the store.`);
    // It is there: the report did not say it was not.
    expect(stored().get(ids[0] as bigint)?.name).toBe(`plant ${ids[0]}`);
  });

  it('one record: "sent, no answer", the hint to look, exit 3', async () => {
    const [id] = freshIds(1) as [bigint];
    const proxy = await startDroppingProxy(store.url, { dropAnswer: () => true, refuseAfterDrop: true });
    const result = await user.run(['add', '--id', String(id), '--name', 'Ivy', '--retries', '1'], {
      env: { PLANTS_BASE_URL: proxy.url },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      new RegExp(
        `^plants: sent, no answer: plant ${id} may or may not have been added \\(cannot reach http://127\\.0\\.0\\.1:\\d+: connection refused\\)\\n  \`plants get ${id}\` shows whether it is in the store\\.\\n`,
      ),
    );
    expect(stored().get(id)?.name).toBe('Ivy');
  });
});

describe('an import that ended early says how to carry on, and the line it prints does', () => {
  /** The backquoted `plants add …` line of stderr, as words (a path of the test's own: no quoting). */
  const carryOnWords = (stderr: string) => {
    const lines = stderr.split('\n').filter((line) => line.includes('`plants add '));
    expect(lines, stderr).toHaveLength(1);
    return (/`plants (add [^`]+)`/.exec(lines[0] as string)?.[1] ?? '').split(' ');
  };
  const listening = (stderr: string) => stderr.split('Is a store listening there?').length - 1;

  it('Ctrl-C: the line names --skip-existing; followed with the same input, every record ends added or already there', async () => {
    const ids = freshIds(20_000);
    const input = ndjson(ids);
    const file = path.join(user.dir, 'interrupted.ndjson');
    writeFileSync(file, input);
    const running = user.spawn(['add', '--file', file, '--concurrency', '8']);
    while (running.stdout.split('\n').length < 200 && running.child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 20));
    running.child.kill('SIGINT');
    const interrupted = await running.exited;
    expect(interrupted.code).toBe(130);
    const words = carryOnWords(interrupted.stderr);
    expect(words).toEqual(['add', '--file', file, '--skip-existing']);
    const carried = await user.run(words);
    expect(carried.code, carried.stderr).toBe(0);
    const outcomes = resultLines(carried.stdout).map((line) => line.outcome);
    expect(outcomes).toHaveLength(ids.length);
    expect(outcomes.every((outcome) => outcome === 'added' || outcome === 'existing')).toBe(true);
    const now = stored();
    expect(ids.filter((id) => !now.has(id))).toEqual([]);
  });

  it('a store killed mid-way: the line names --skip-existing, "Is a store listening there?" is said once, and the line carries on once the store is back', async () => {
    const dbPath = path.join(user.dir, 'killed.db');
    const port = String(await freePort());
    const args = ['--port', port, '--db', dbPath, '--token', TEST_TOKEN, '--quiet'];
    let serve = await serves.start(args);
    const ids = freshIds(20_000);
    const file = path.join(user.dir, 'killed.ndjson');
    writeFileSync(file, ndjson(ids));
    const running = user.spawn(['add', '--file', file, '--base-url', serve.url, '--retries', '0']);
    while (running.stdout.split('\n').length < 200 && running.child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await serve.stop('SIGKILL');
    const stopped = await running.exited;
    expect(stopped.code).not.toBe(0);
    expect(listening(stopped.stderr), stopped.stderr).toBe(1);
    const words = carryOnWords(stopped.stderr);
    expect(words).toEqual(['add', '--file', file, '--skip-existing', '--base-url', serve.url]);
    serve = await serves.start(args);
    const carried = await user.run(words);
    expect(carried.code, carried.stderr).toBe(0);
    const outcomes = resultLines(carried.stdout).map((line) => line.outcome);
    expect(outcomes).toHaveLength(ids.length);
    expect(outcomes.every((outcome) => outcome === 'added' || outcome === 'existing')).toBe(true);
    await serve.stop('SIGTERM');
    expect(readStoredPlants(dbPath).map((row) => row.id)).toEqual(ids);
  });
});
