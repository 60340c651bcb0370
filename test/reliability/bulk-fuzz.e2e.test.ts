import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecret, fcOptions, reportFigures, scaled } from '../helpers/reliability.js';
import { storeBackends } from '../helpers/store-backends.js';
import { type StoreServer, useTestStore } from '../helpers/store-server.js';
import { useTempUser } from '../helpers/user.js';
import { INT64_MAX, INT64_MIN } from './arbitraries.js';

/**
 * Generated input for `plants add --file` (the built CLI) into a real store: NDJSON with blank
 * and broken lines, JSON arrays with elements over several lines, and single objects. Every
 * record is reported once, in input order, with the line it starts on; valid records are sent
 * exactly once (one request each in the server's log); the store then holds exactly the
 * records reported 200, and of records sharing an id exactly one is. On each store (SQLite,
 * PostgreSQL: there the adds of one run share batched INSERTs).
 */

/** The store of the describe block running now (one per backend, one after the other). */
let store: StoreServer;
/** Its folder holds the input files; each run is given the store of the moment. */
const user = useTempUser();

/** Ids never used before in this file, alternating near the top and the bottom of int64. */
let issued = 0n;
function freshId(): bigint {
  issued += 1n;
  return issued % 2n === 0n ? INT64_MAX - issued : INT64_MIN + issued;
}

type Field = 'id' | 'name' | 'tag' | 'object';

type Spec =
  | { kind: 'valid'; name: string; tag: string | undefined }
  /** The id of an earlier valid record (by index among them), under another name. */
  | { kind: 'duplicate'; of: number; name: string }
  /** JSON, but not a NewPlant: `bad` names the fields at fault. */
  | { kind: 'invalid'; json: string; bad: readonly Field[] }
  /** Not JSON at all. */
  | { kind: 'broken'; text: string };

const nameText = fc.string({ unit: 'binary', minLength: 1, maxLength: 16 });

const invalidRecord = fc.constantFrom<{ json: string; bad: readonly Field[] }>(
  { json: '{"id":"5","name":"string id"}', bad: ['id'] },
  { json: '{"id":1.5,"name":"fraction"}', bad: ['id'] },
  { json: '{"id":9223372036854775808,"name":"too big"}', bad: ['id'] },
  { json: '{"name":"no id"}', bad: ['id'] },
  { json: '{"id":7,"name":""}', bad: ['name'] },
  { json: '{"id":7}', bad: ['name'] },
  { json: '{"id":7,"name":"x","tag":5}', bad: ['tag'] },
  { json: '{"id":7,"name":"x","tag":null}', bad: ['tag'] },
  { json: '{"id":null,"name":null,"tag":false}', bad: ['id', 'name', 'tag'] },
  { json: '[1,2]', bad: ['object'] },
  { json: '"a string"', bad: ['object'] },
  { json: '42', bad: ['object'] },
  { json: 'null', bad: ['object'] },
);

/** Not JSON, and safe inside an array (balanced brackets, no comma at the top). */
const brokenText = fc.constantFrom(
  'tru',
  'nul',
  'undefined',
  'NaN',
  '01',
  '{"id":01,"name":"x"}',
  "{'id':1}",
  '{"id":1 "name":"x"}',
  '[1,]',
);

const spec: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({ name: nameText, tag: fc.option(nameText, { nil: undefined, freq: 2 }) })
      .map((r) => ({ kind: 'valid' as const, ...r })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ of: fc.nat(), name: nameText }).map((r) => ({ kind: 'duplicate' as const, ...r })),
  },
  { weight: 2, arbitrary: invalidRecord.map((r) => ({ kind: 'invalid' as const, ...r })) },
  { weight: 2, arbitrary: brokenText.map((text) => ({ kind: 'broken' as const, text })) },
);

interface Layout {
  shape: 'ndjson' | 'array' | 'single';
  specs: Spec[];
  crlf: boolean;
  /** Blank lines before each NDJSON record (any white space). */
  blanks: string[][];
  trailingNewline: boolean;
  /** Pretty-print array elements over several lines. */
  pretty: boolean;
  tagFlag: string | undefined;
  concurrency: number;
  viaFile: boolean;
}

const layout: fc.Arbitrary<Layout> = fc
  .record({
    shape: fc.constantFrom<Layout['shape']>('ndjson', 'ndjson', 'array', 'single'),
    specs: fc.array(spec, { minLength: 1, maxLength: scaled(60, 300), size: 'large' }),
    crlf: fc.boolean(),
    blanks: fc.array(fc.array(fc.constantFrom('', ' ', '\t', '   '), { maxLength: 2 }), { maxLength: 200 }),
    trailingNewline: fc.boolean(),
    pretty: fc.boolean(),
    tagFlag: fc.option(fc.constantFrom('shade', 'ünïcode', ''), { nil: undefined, freq: 4 }),
    concurrency: fc.constantFrom(1, 2, 4, 16, 64),
    viaFile: fc.boolean(),
  })
  .map((l) => {
    // Input that starts with "[" is a JSON array, whatever follows: keep that for the array shape.
    const bracket = (s: Spec) => (s.kind === 'invalid' ? s.json : s.kind === 'broken' ? s.text : '').startsWith('[');
    if (l.shape !== 'array') {
      const first = l.specs.findIndex((s) => !bracket(s));
      if (first === -1) return { ...l, shape: 'array' as const };
      l.specs.unshift(...l.specs.splice(first, 1));
    }
    // NDJSON needs two records to be many; a single object is one record.
    if (l.shape === 'single') return { ...l, specs: l.specs.slice(0, 1) };
    if (l.shape === 'ndjson' && l.specs.length < 2) return { ...l, specs: [...l.specs, ...l.specs] };
    return l;
  });

interface Expected {
  line: number;
  spec: Spec;
  /** For valid and duplicate records: the id, the name and the tag that would be stored. */
  plant?: { id: bigint; name: string; tag: string | undefined };
  /** After flags: would the CLI send it? */
  sendable: boolean;
}

/** The text of the input and what each record must come to, worked out from how it was built. */
function build(l: Layout): { text: string; expected: Expected[] } {
  const ids: bigint[] = [];
  const expected: Expected[] = [];
  const texts: string[] = [];
  /** The members of each object record, so that it can be spread over lines. */
  const objects: Array<string[] | undefined> = [];
  for (const s of l.specs) {
    let text: string;
    let members: string[] | undefined;
    let plant: Expected['plant'];
    let sendable = false;
    if (s.kind === 'valid' || s.kind === 'duplicate') {
      const id = s.kind === 'valid' || ids.length === 0 ? freshId() : (ids[s.of % ids.length] as bigint);
      if (s.kind === 'valid' || ids.length === 0) ids.push(id);
      const tag = s.kind === 'valid' ? s.tag : undefined;
      members = [`"id":${id}`, `"name":${JSON.stringify(s.name)}`];
      if (tag !== undefined) members.push(`"tag":${JSON.stringify(tag)}`);
      text = `{${members.join(',')}}`;
      plant = { id, name: s.name, tag: l.tagFlag ?? tag };
      sendable = true;
    } else if (s.kind === 'invalid') {
      text = s.json;
      // --tag replaces the tag: a record whose only fault was its tag becomes sendable.
      sendable = l.tagFlag !== undefined && s.bad.every((field) => field === 'tag');
      if (sendable) {
        const parsed = JSON.parse(text) as { id: number; name: string };
        const id = freshId();
        members = [`"id":${id}`, `"name":${JSON.stringify(parsed.name)}`, '"tag":5'];
        text = `{${members.join(',')}}`;
        plant = { id, name: parsed.name, tag: l.tagFlag };
        ids.push(id);
      }
    } else {
      text = s.text;
    }
    texts.push(text);
    objects.push(members);
    expected.push({ line: 0, spec: s, plant, sendable });
  }

  const newline = l.crlf ? '\r\n' : '\n';
  let out = '';
  let line = 1;
  const add = (piece: string) => {
    out += piece;
    line += piece.split('\n').length - 1;
  };
  if (l.shape === 'array') {
    add(l.pretty ? `[${newline}` : '[');
    texts.forEach((text, index) => {
      const members = objects[index];
      const element =
        l.pretty && members !== undefined ? `{${newline}    ${members.join(`,${newline}    `)}${newline}  }` : text;
      if (l.pretty) add('  ');
      (expected[index] as Expected).line = line;
      add(element);
      if (index < texts.length - 1) add(l.pretty ? `,${newline}` : ',');
    });
    add(l.pretty ? `${newline}]` : ']');
  } else {
    texts.forEach((text, index) => {
      for (const blank of l.shape === 'ndjson' ? (l.blanks[index] ?? []) : []) add(`${blank}${newline}`);
      (expected[index] as Expected).line = line;
      add(text);
      if (index < texts.length - 1) add(newline);
    });
  }
  if (l.trailingNewline) add(newline);
  return { text: out, expected };
}

const parsesAlone = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

const figures = { runs: 0, records: 0, sent: 0, added: 0, rejected: 0, invalid: 0, lines: 0 };

async function runOnce(l: Layout): Promise<void> {
  const { text, expected } = build(l);
  const logBefore = store.logLines.length;
  const args = ['add', '--file', '-', '--concurrency', `${l.concurrency}`];
  let input: string | undefined = text;
  if (l.viaFile) {
    const file = path.join(user.dir, `input-${figures.runs}.json`);
    writeFileSync(file, text);
    args[2] = file;
    input = undefined;
  }
  if (l.tagFlag !== undefined) args.push('--tag', l.tagFlag);
  const result = await user.run(args, {
    env: { PLANTS_BASE_URL: store.url, PLANTS_TOKEN: store.token },
    input,
    timeoutMs: 60_000,
  });
  figures.runs++;
  figures.records += expected.length;
  const what = `${l.shape} of ${expected.length} (${JSON.stringify(text.slice(0, 400))}), exit ${result.code}, stderr ${JSON.stringify(result.stderr.slice(0, 400))}`;
  expectNoSecret(store.token, { stdout: result.stdout, stderr: result.stderr });
  expect(result.signal, what).toBeNull();

  const sendable = expected.filter((record) => record.sendable);
  const stored = new Map((await store.readPlants()).map((row) => [row.id, row]));

  if (l.shape === 'single') {
    const [record] = expected as [Expected];
    if (record.sendable) {
      expect(result.code, what).toBe(0);
      const row = stored.get(record.plant?.id as bigint);
      expect(row, what).toEqual({ id: record.plant?.id, name: record.plant?.name, tag: record.plant?.tag ?? null });
    } else {
      expect(result.code, what).toBe(2);
      expect(result.stdout, what).toBe('');
    }
    await waitForLog(logBefore + (record.sendable ? 1 : 0));
    expect(store.logLines.length - logBefore, what).toBe(record.sendable ? 1 : 0);
    return;
  }

  // NDJSON is recognised by its first or second non-blank line parsing alone; else it is read as
  // one document, which is not JSON: nothing is sent (exit 2).
  const nonBlank = text.split('\n').filter((line) => line.trim() !== '');
  if (l.shape === 'ndjson' && !nonBlank.slice(0, 2).some(parsesAlone)) {
    expect(result.code, what).toBe(2);
    expect(result.stdout, what).toBe('');
    expect(store.logLines.length - logBefore, what).toBe(0);
    return;
  }

  const lines = result.stdout.split('\n');
  expect(lines.pop(), what).toBe('');
  expect(lines, what).toHaveLength(expected.length);
  figures.lines += lines.length;
  const reported = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(
    reported.map((record) => record.line),
    what,
  ).toEqual(expected.map((record) => record.line));

  // Of records sharing an id, exactly one is added; the store holds that one's name and tag.
  const winners = new Map<bigint, number>();
  const refused: Array<[bigint, { name: string; tag?: string }, string]> = [];
  reported.forEach((record, index) => {
    const want = expected[index] as Expected;
    const where = `record ${index + 1} (${want.spec.kind}) of ${what}: ${lines[index]}`;
    if (!want.sendable) {
      expect(record.sent, where).toBe(false);
      expect(record.status, where).toBeUndefined();
      expect(record.error, where).toEqual({ message: expect.any(String) });
      if (want.spec.kind === 'broken')
        expect((record.error as { message: string }).message, where).toMatch(/^not valid JSON/);
      else expect(record.fields, where).toEqual(expect.any(Array));
      figures.invalid++;
      return;
    }
    expect(record.sent, where).toBe(true);
    const id = want.plant?.id as bigint;
    if (record.status === 200) {
      figures.added++;
      expect(winners.has(id), `a second 200 for id ${id}: ${where}`).toBe(false);
      winners.set(id, index);
      // The id digit for digit, straight from the text.
      expect(lines[index], where).toContain(`"plant":{"id":${id},`);
      const plant = record.plant as { name: string; tag?: string };
      expect(plant.name, where).toBe(want.plant?.name);
      expect(plant.tag, where).toBe(want.plant?.tag);
    } else {
      figures.rejected++;
      expect(record.status, where).toBe(409);
      // The Error record, and the plant stored under the id (the winner's, checked below).
      const { plant, ...error } = record.error as { plant: { name: string; tag?: string } };
      expect(error, where).toEqual({ error: 409, message: `a plant with id ${id} already exists` });
      expect(lines[index], where).toContain(`"plant":{"id":${id},`);
      refused.push([id, plant, where]);
    }
  });
  for (const want of sendable) {
    const id = want.plant?.id as bigint;
    expect(winners.has(id), `no 200 for id ${id}: ${what}`).toBe(true);
    const winner = expected[winners.get(id) as number] as Expected;
    expect(stored.get(id), what).toEqual({ id, name: winner.plant?.name, tag: winner.plant?.tag ?? null });
  }
  for (const [id, plant, where] of refused) {
    const winner = expected[winners.get(id) as number] as Expected;
    expect(plant, where).toEqual(
      winner.plant?.tag === undefined
        ? { id: expect.anything(), name: winner.plant?.name }
        : { id: expect.anything(), name: winner.plant?.name, tag: winner.plant.tag },
    );
  }
  figures.sent += sendable.length;

  // Each sendable record went out exactly once: one request in the server's log each.
  await waitForLog(logBefore + sendable.length);
  expect(store.logLines.length - logBefore, what).toBe(sendable.length);

  const allAdded = reported.every((record) => record.status === 200);
  expect(result.code, what).toBe(allAdded ? 0 : 1);
  if (!allAdded) expect(result.stderr, what).toMatch(/Added \d+ of \d+ plants/);
}

/** Waits for the server's log to hold `count` lines, up to 10 s (a loaded machine is slow), then leaves the check to the caller. */
async function waitForLog(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (store.logLines.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe.each(storeBackends())('plants add --file with generated records, on $name', (backend) => {
  const own = useTestStore({ backend });
  beforeAll(() => {
    store = own;
    for (const key of Object.keys(figures) as Array<keyof typeof figures>) figures[key] = 0;
  });

  it(
    'reports every record in order with its line, sends the valid ones once, stores exactly the 200s',
    async () => {
      await fc.assert(fc.asyncProperty(layout, runOnce), fcOptions(scaled(20, 200)));
      reportFigures(`bulk fuzz on ${backend.name}`, figures);
    },
    scaled(120_000, 900_000),
  );
});
