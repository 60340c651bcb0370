// The ceiling of the PostgreSQL rows: the INSERT plants serve would make for one add, driven
// straight from the driver (pg), one row per round trip, with as many in flight as the load
// generator keeps requests in flight. Prints one JSON line: rows/s and p99 latency.
import pg from 'pg';

const { url, connections, seconds, firstId } = JSON.parse(process.argv[2]);
const pool = new pg.Pool({ connectionString: url, max: Math.min(connections, 64) });
const sql = 'INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id';
let next = BigInt(firstId);
const latencies = [];
let rows = 0;
const deadline = performance.now() + seconds * 1000;
async function worker() {
  while (performance.now() < deadline) {
    const id = next;
    next += 1n;
    const started = performance.now();
    // name and tag are bytea (UTF-8 bytes), as plants serve stores them.
    await pool.query(sql, [id.toString(), Buffer.from(`plant ${id}`), Buffer.from('bench')]);
    latencies.push(performance.now() - started);
    rows += 1;
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: connections }, worker));
const elapsed = (performance.now() - started) / 1000;
await pool.end();
latencies.sort((a, b) => a - b);
const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
process.stdout.write(`${JSON.stringify({ rows, rps: rows / elapsed, latencyP99: p99 })}\n`);
