import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommandLine } from '../../helpers/in-process.js';
import { freePort } from '../../helpers/ports.js';
import { lastJournalSeq, useTestStore } from '../../helpers/store-server.js';
import { useTempUser } from '../../helpers/user.js';

// plants add --dry-run in this process, as the fast route parses it: every record checked as add
// checks it, a result line each, nothing sent.

const server = useTestStore();
const user = useTempUser(server);
/** A user with no token, whose store is a port nobody listens on. */
const offline = useTempUser(undefined);

const dryRun = (args: string[], input = '') =>
  runCommandLine(['add', ...args, '--dry-run'], { env: user.env, streams: { input } });

const MAX = '9223372036854775807';
const valid = (line: number, plant: string, index = '') =>
  `{"line":${line}${index},"sent":false,"plant":${plant},"outcome":"valid"}`;

describe('plants add --dry-run, in-process', () => {
  it('prints a valid line for each good record, in every layout the bulk reader takes, exit 0', async () => {
    const ndjson = `{"id":${MAX},"name":"Oak"}\n{"id":-${MAX},"name":"Moss","tag":""}\n`;
    expect(await dryRun(['--file', '-'], ndjson)).toEqual({
      code: 0,
      stdout: `${valid(1, `{"id":${MAX},"name":"Oak"}`)}\n${valid(2, `{"id":-${MAX},"name":"Moss","tag":""}`)}\n`,
      stderr: '2 records: 2 valid, 0 invalid\n',
    });
    const array = await dryRun(['--file', '-', '--tag', 'herb'], '[{"id": 1, "name": "a"},\n {"id": 2, "name": "b"}]');
    expect(array.stdout.split('\n')[1]).toBe(valid(2, '{"id":2,"name":"b","tag":"herb"}', ',"index":1'));
    const pretty = await dryRun(['--file', '-'], '{\n  "id": 1,\n  "name": "a"\n}\n{\n  "id": 2,\n  "name": "b"\n}\n');
    expect(pretty.stdout).toBe(`${valid(1, '{"id":1,"name":"a"}')}\n${valid(5, '{"id":2,"name":"b"}')}\n`);
    expect(await dryRun(['--file', '-'], '')).toEqual({
      code: 0,
      stdout: '',
      stderr: '0 records: 0 valid, 0 invalid\n',
    });
  });

  it('names every record add would refuse, with the fields at fault; exit 2 and the count on stderr', async () => {
    const file = path.join(user.dir, 'mixed.ndjson');
    const lines = [
      '{"id":1,"name":"Fern"}',
      '{"id":9223372036854775808,"name":"Big"}',
      '{"id":3,"name":""}',
      `{"id":4,"name":"${'n'.repeat(1025)}"}`,
      `{"id":5,"name":"Ivy","tag":"${'t'.repeat(1025)}"}`,
      'not json',
      `{"id":7,"name":"${'x'.repeat(70 * 1024)}"}`,
      '{"id":"8","name":"Quoted"}',
    ];
    writeFileSync(
      file,
      Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), Buffer.from('{"id":9,"name":"\xff"}\n', 'latin1')]),
    );
    const result = await dryRun(['--file', file]);
    expect(result.code).toBe(2);
    const results = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((line) => [line.line, line.outcome, line.fields])).toEqual([
      [1, 'valid', undefined],
      [2, 'invalid', ['id']],
      [3, 'invalid', ['name']],
      [4, 'invalid', ['name']],
      [5, 'invalid', ['tag']],
      [6, 'invalid', []],
      [7, 'invalid', []],
      [8, 'invalid', ['id']],
      [9, 'invalid', []],
    ]);
    expect(results.every((line) => line.sent === false)).toBe(true);
    expect(result.stderr).toBe('9 records: 1 valid, 8 invalid (line 2; line 3; line 4; line 5; line 6; …)\n');
    expect(await dryRun(['--file', '-'], '{"id":1,"name":"a"}\n{"id":2}\n{"id":3,"name":"c"}\n')).toMatchObject({
      code: 2,
      stderr: '3 records: 2 valid, 1 invalid (line 2)\n',
    });
  });

  it('checks a one-plant add from the flags in one line', async () => {
    expect(await dryRun(['--id', MAX, '--name', 'Oak', '--tag', 'tree'])).toEqual({
      code: 0,
      stdout: `${valid(1, `{"id":${MAX},"name":"Oak","tag":"tree"}`)}\n`,
      stderr: '1 record: 1 valid, 0 invalid\n',
    });
    const refused = await dryRun(['--id', '9223372036854775808', '--name', 'Oak']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ line: 1, sent: false, fields: ['id'], outcome: 'invalid' });
    expect(refused.stderr).toBe('1 record: 0 valid, 1 invalid (line 1)\n');
  });

  it('needs no token, no config and no store, and sends nothing to one that is there', async () => {
    const env = { ...offline.env, PLANTS_BASE_URL: `http://127.0.0.1:${await freePort()}` };
    const result = await runCommandLine(['add', '--file', '-', '--dry-run'], {
      env,
      streams: { input: '{"id":1,"name":"a"}' },
    });
    expect(result).toEqual({
      code: 0,
      stdout: `${valid(1, '{"id":1,"name":"a"}')}\n`,
      stderr: '1 record: 1 valid, 0 invalid\n',
    });
    expect(existsSync(offline.configDir)).toBe(false);
    const before = await lastJournalSeq(server);
    expect((await dryRun(['--file', '-'], '{"id":1,"name":"a"}\n{"id":2,"name":""}\n')).code).toBe(2);
    expect(await lastJournalSeq(server)).toBe(before);
  });

  it('takes --jq like any JSON output', async () => {
    expect(
      await dryRun(
        ['--file', '-', '--jq', 'select(.outcome == "valid") | .plant.id'],
        `{"id":${MAX},"name":"a"}\n{"id":2}\n`,
      ),
    ).toEqual({
      code: 2,
      stdout: `${MAX}\n`,
      stderr: '2 records: 1 valid, 1 invalid (line 2)\n',
    });
  });
});
