// The ceiling of the server rows: a bare node:http server that reads the body, parses the JSON
// and answers 200 with it, storing nothing, checking nothing. Listens on 127.0.0.1 only, on a
// free port, and prints its URL as its first stdout line (as `plants serve` does).
import http from 'node:http';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body;
    try {
      body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.statusCode = 200;
    } catch {
      body = '{"error":400,"message":"bad json"}';
      res.statusCode = 400;
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
