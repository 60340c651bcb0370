import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, projectRoot, resultLines, runCli } from '../helpers/cli.js';
import { type CutPoint, firstMessageEnd, startFaultyRelay } from '../helpers/faulty-relay.js';
import { useServeProcess } from '../helpers/serve-process.js';

// A bulk add whose connections are cut, or whose requests wait in undici's queue past their
// time-out: every request settles, and the run ends, promptly, with a documented exit code, a
// result line per record and its summary. Issue 49: a request given up while still queued was
// later written by undici, its answer paused and never resumed, and the run ended with exit 13
// (Node's code for a top-level await left pending) or never ended.

const TOKEN = 'add-cut-connections-token-0123456789';
const serve = useServeProcess(['--port', '0', '--memory', '--quiet', '--token', TOKEN]);
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

let nextId = 1;
/** Ids no other case of this file uses, in the one store. */
function freshIds(count: number): number[] {
  const ids = Array.from({ length: count }, (_, index) => nextId + index);
  nextId += count;
  return ids;
}

const ndjson = (ids: readonly number[]) => `${ids.map((id) => `{"id":${id},"name":"plant ${id}"}`).join('\n')}\n`;

async function storedNames(ids: readonly number[]): Promise<Array<string | undefined>> {
  const names: Array<string | undefined> = [];
  for (const id of ids) {
    const answer = await request(`${serve.url}/plants/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await answer.body.text();
    names.push(answer.statusCode === 200 ? (JSON.parse(text) as { name: string }).name : undefined);
  }
  return names;
}

/** A run that ended as a bulk add must: on its own, with an exit code of plants', a line per record, a summary. */
function expectSettledRun(result: CliResult, ids: readonly number[]): void {
  expect(result.signal, result.stderr).toBeNull();
  expect(result.code, result.stderr).toBe(0);
  expect(resultLines(result.stdout).map((line) => line.line)).toEqual(ids.map((_, index) => index + 1));
  expect(result.stderr).toMatch(/^✓ Added \d+ of \d+ plants/m);
  expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
}

describe('plants add --file, requests given up while undici still holds them', () => {
  const fixtures = path.join(projectRoot, 'test', 'server', 'fixtures');
  const cert = path.join(fixtures, 'test-tls-cert.pem');
  const tlsServe = useServeProcess([
    ...['--port', '0', '--memory', '--quiet', '--token', TOKEN],
    ...['--tls-cert', cert, '--tls-key', path.join(fixtures, 'test-tls-key.pem')],
  ]);

  it('ends with exit 3, every record not sent, when no request is written within its time-out', async () => {
    // The first connection's TLS handshake is held for 4 s: every request waits in undici's
    // queue past its 1 s and is given up on (not written: not sent, with no retries), the run
    // ends, and undici still holds them all. Before issue 49 undici wrote them once the handshake
    // came through, the first answer was paused and never resumed, and the dispatcher's close
    // waited on it: exit 13, or no end.
    const relay = await startFaultyRelay(new URL(tlsServe.url), { holdMs: 4000, connections: 1 });
    closing.push(() => relay.close());
    const result = await runCli(
      ['add', '--file', '-', '--concurrency', '4', '--timeout', '1', '--retries', '0', '--ca-cert', cert],
      { env: { PLANTS_BASE_URL: relay.url, PLANTS_TOKEN: TOKEN }, input: ndjson(freshIds(4)), timeoutMs: 30_000 },
    );
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(3);
    const lines = resultLines(result.stdout);
    expect(lines.map((line) => [line.line, line.outcome, line.sent])).toEqual(
      [1, 2, 3, 4].map((line) => [line, 'not-sent', false]),
    );
    expect(result.stderr).toMatch(/^✗ Added 0 of 4 read/m);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 60_000);
});

/** The offset `delta` bytes from a landmark of the first message (undefined until it has come whole). */
function fromFirst(landmark: (text: string, end: number) => number, delta = 0): CutPoint['at'] {
  return (bytes) => {
    const end = firstMessageEnd(bytes);
    return end === undefined ? undefined : landmark(bytes.subarray(0, end).toString('latin1'), end) + delta;
  };
}
const lineEnd = (text: string) => text.indexOf('\r\n');
const headEnd = (text: string) => text.indexOf('\r\n\r\n') + 4;
const middleOfHead = (text: string) => Math.floor(headEnd(text) / 2);
const messageEnd = (_text: string, end: number) => end;

/** Every point of a request and of an answer where a connection can be cut. */
const POINTS: Array<[string, CutPoint['at']]> = [
  ['before its first byte', () => 0],
  ['after its first byte', () => 1],
  ['inside its first line', fromFirst(lineEnd, -3)],
  ['at the end of its first line', fromFirst(lineEnd, 2)],
  ['inside its headers', fromFirst(middleOfHead)],
  ['at the end of its head', fromFirst(headEnd)],
  ['one byte into its body', fromFirst(headEnd, 1)],
  ['one byte short of its end', fromFirst(messageEnd, -1)],
  ['at its end, with more pipelined behind it', fromFirst(messageEnd)],
];

describe.each(['request', 'answer'] as const)('plants add --file, connections cut in the %s', (side) => {
  it.each(POINTS)(
    'cut %s: every record added, exit 0',
    async (_where, at) => {
      const ids = freshIds(24);
      // The first two connections are cut at the same point: a request undici writes again, or the
      // client retries, may meet the cut once more.
      const relay = await startFaultyRelay(new URL(serve.url), { cut: { side, at }, connections: 2 });
      closing.push(() => relay.close());
      const result = await runCli(['add', '--file', '-', '--concurrency', '8', '--timeout', '5'], {
        env: { PLANTS_BASE_URL: relay.url, PLANTS_TOKEN: TOKEN },
        input: ndjson(ids),
        timeoutMs: 60_000,
      });
      expect(relay.cuts).toBe(2);
      expectSettledRun(result, ids);
      expect(await storedNames(ids)).toEqual(ids.map((id) => `plant ${id}`));
    },
    90_000,
  );
});
