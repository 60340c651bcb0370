// Load generator for the server rows, in its own process: autocannon 8 sending POST /plants with
// a unique id per request. Argument: one JSON object {url, token, connections, pipelining,
// duration, firstId}. Prints autocannon's summary as one JSON line on stdout.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
const target = new URL(options.url);
if (target.hostname !== '127.0.0.1') throw new Error(`refusing to load anything but 127.0.0.1 (got ${target.host})`);

let next = BigInt(options.firstId ?? 1);
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  pipelining: options.pipelining,
  duration: options.duration,
  headers: {
    'content-type': 'application/json',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  },
  requests: [
    {
      method: 'POST',
      path: '/plants',
      setupRequest(request) {
        const id = next;
        next += 1n;
        return { ...request, body: `{"id":${id},"name":"plant ${id}","tag":"bench"}` };
      },
    },
  ],
});
const codes = Object.fromEntries(
  Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
);
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    duration: result.duration,
    rps: result.requests.total / result.duration,
    average: result.requests.average,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    codes,
  })}\n`,
);
