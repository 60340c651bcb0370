import { beforeAll, describe, expect, it } from 'vitest';
import { useServeProcess } from '../helpers/serve-process.js';
import { lastJournalSeq } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';

// --jq and add --dry-run as a user runs them: the built CLI against a real `plants serve`, whose
// request journal (GET /_serve/journal) shows what was sent.

const TOKEN = 'jq-e2e-token-0123456789abcdef';
const serve = useServeProcess(['--port', '0', '--memory', '--token', TOKEN]);
const store = {
  get url() {
    return serve.url;
  },
  token: TOKEN,
};
const user = useTempUser(store);

const IDS = ['9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775807'];
const HERBS = ['-9223372036854775807', '9007199254740993', '9223372036854775807'];

beforeAll(async () => {
  for (const [index, id] of IDS.entries()) {
    const tag = HERBS.includes(id) ? 'herb' : 'tree';
    const added = await user.run(['add', '--id', id, '--name', `plant ${index}`, '--tag', tag]);
    expect(added.code, added.stderr).toBe(0);
  }
  for (const id of ['1', '2', '3']) expect((await user.run(['add', '--id', id, '--name', `p${id}`])).code).toBe(0);
});

describe('--jq against plants serve', () => {
  it.each(IDS)('get %s --jq .id prints every digit, by the fast route and by oclif', async (id) => {
    for (const viaOclif of [false, true]) {
      expect(await user.run(['get', id, '--jq', '.id'], { viaOclif })).toMatchObject({
        code: 0,
        stdout: `${id}\n`,
        stderr: '',
      });
    }
    const selected = await user.run(['list', '--all', '--jq', `select(.id == ${id}) | .id`]);
    expect(selected.stdout).toBe(`${id}\n`);
  });

  it("list --all --jq 'select(.tag == \"herb\") | .id' prints exactly the herbs' ids across every page", async () => {
    const result = await user.run(['list', '--all', '--limit', '2', '--jq', 'select(.tag == "herb") | .id']);
    expect(result).toMatchObject({ code: 0, stdout: `${HERBS.join('\n')}\n`, stderr: '' });
  });

  it('add --jq .name prints the name raw; status --jq type prints object', async () => {
    const name = 'Boston "Fern" \\ fronds';
    expect(await user.run(['add', '--id', '10', '--name', name, '--jq', '.name'])).toMatchObject({
      code: 0,
      stdout: `${name}\n`,
      stderr: '',
    });
    expect(await user.run(['status', '--jq', 'type'])).toMatchObject({ code: 0, stdout: 'object\n' });
  });

  it('a bad expression is exit 2 with jq’s message on one line, and nothing reaches the store', async () => {
    const before = await lastJournalSeq(store);
    for (const args of [
      ['get', '1'],
      ['list', '--all'],
      ['add', '--id', '11', '--name', 'Ivy'],
      ['delete', '1', '--yes'],
    ]) {
      const result = await user.run([...args, '--jq', 'select(.tag == )']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toMatch(
        /^plants: --jq: jq: error: syntax error, unexpected '\)'.*; jq: 1 compile error$/,
      );
    }
    expect(await lastJournalSeq(store)).toBe(before);
  });

  it('a runtime error is exit 2 naming the value’s line, after the lines before it', async () => {
    const result = await user.run(['list', '--after', '0', '--jq', 'if .id == 3 then .name + 1 else .name end']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('p1\np2\n');
    expect(result.stderr.split('\n')[0]).toBe(
      'plants: --jq: jq: error (at line 3): string ("p3") and number (1) cannot be added',
    );
  });
});

describe('add --file - --dry-run against plants serve', () => {
  it('valid records: exit 0, a valid line each, nothing sent', async () => {
    const before = await lastJournalSeq(store);
    const result = await user.run(['add', '--file', '-', '--dry-run'], {
      input: '{"id":20,"name":"a"}\n{"id":9223372036854775807,"name":"b"}\n',
    });
    expect(result).toMatchObject({ code: 0, stderr: '2 records: 2 valid, 0 invalid\n' });
    expect(result.stdout).toBe(
      '{"line":1,"sent":false,"plant":{"id":20,"name":"a"},"outcome":"valid"}\n' +
        '{"line":2,"sent":false,"plant":{"id":9223372036854775807,"name":"b"},"outcome":"valid"}\n',
    );
    expect(await lastJournalSeq(store)).toBe(before);
  });

  it('invalid lines: exit 2 naming them, nothing sent', async () => {
    const before = await lastJournalSeq(store);
    const result = await user.run(['add', '--file', '-', '--dry-run'], {
      input: '{"id":21,"name":"a"}\n{"id":22}\n{"id":23,"name":"c"}\n{"id":"24","name":"d"}\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('4 records: 2 valid, 2 invalid (line 2; line 4)\n');
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).outcome),
    ).toEqual(['valid', 'invalid', 'valid', 'invalid']);
    expect(await lastJournalSeq(store)).toBe(before);
  });
});
