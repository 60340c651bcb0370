// The ceiling of the bulk row: the same NDJSON records `plants add --file` sends, sent by a bare
// load generator on one undici Pool with HTTP pipelining, in its own process.
// Argument: one JSON object {url, token, file, connections, pipelining}. Streams the
// file (one record per line, sent as it is) with at most connections × pipelining requests in flight.
// Prints {records, ok, failed, ms} as one JSON line on stdout; exits 1 if any record failed, saying why the first did on stderr.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

const options = JSON.parse(process.argv[2] ?? '{}');
const origin = new URL(options.url);
if (origin.hostname !== '127.0.0.1') throw new Error(`refusing to load anything but 127.0.0.1 (got ${origin.host})`);

const started = performance.now();
const limit = options.connections * options.pipelining;
const pool = new Pool(origin.origin, { connections: options.connections, pipelining: options.pipelining });
const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
let inFlight = 0;
let records = 0;
let ok = 0;
let failed = 0;
/** Why the first record failed (its status, or the error's code), said on stderr at the end. */
let firstFailure;
let wake;

async function send(body) {
  try {
    // undici pipelines a request only if it may replay it (idempotent) and expects a quick answer
    // (not blocking); a POST is neither unless told so.
    const response = await pool.request({
      origin: origin.origin,
      path: '/plants',
      method: 'POST',
      headers,
      body,
      idempotent: true,
      blocking: false,
    });
    await response.body.dump();
    if (response.statusCode === 200) ok += 1;
    else {
      failed += 1;
      firstFailure ??= `HTTP ${response.statusCode}`;
    }
  } catch (error) {
    failed += 1;
    firstFailure ??= `${error.code ?? error.name}: ${error.message}`;
  } finally {
    inFlight -= 1;
    wake?.();
  }
}

const lines = createInterface({ input: createReadStream(options.file), crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of lines) {
  if (line.trim() === '') continue;
  while (inFlight >= limit) await new Promise((resolve) => (wake = resolve));
  inFlight += 1;
  records += 1;
  void send(line);
}
while (inFlight > 0) await new Promise((resolve) => (wake = resolve));
await pool.close();
process.stdout.write(`${JSON.stringify({ records, ok, failed, ms: performance.now() - started })}\n`);
if (firstFailure !== undefined) process.stderr.write(`${failed} records failed; the first: ${firstFailure}\n`);
process.exitCode = failed === 0 ? 0 : 1;
