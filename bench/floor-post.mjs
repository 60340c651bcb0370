// The floor of the start-up rows: the least a Node process can do to add one plant. It sends one
// POST /plants with node:http (nothing else imported) and exits 0 on a 200.
// argv: <base URL> <token> <id>
import http from 'node:http';

const [base, token, id] = process.argv.slice(2);
const url = new URL('/plants', base);
if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send anywhere but 127.0.0.1 (got ${url.host})`);
const body = `{"id":${id},"name":"x"}`;
const request = http.request(
  url,
  {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  },
  (response) => {
    response.resume();
    response.on('end', () => {
      process.exitCode = response.statusCode === 200 ? 0 : 1;
    });
  },
);
request.on('error', (error) => {
  console.error(error.message);
  process.exitCode = 3;
});
request.end(body);
