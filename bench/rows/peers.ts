/** c4, c5: peers under the same load as the server rows, read against the ceiling's requests/s. */
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { node, plan, root, serverCpu } from '../lib/context.js';
import { freshDir } from '../lib/files.js';
import { format, noteRow, progress, type Row } from '../lib/format.js';
import { load } from '../lib/load.js';
import { freePort, type Server, startServer } from '../lib/servers.js';

const require = createRequire(import.meta.url);

export async function peerRows(ceilingRps: number): Promise<Row[]> {
  return [
    await peer('c4', 'peer: prism mock (the contract)', startPrism, ceilingRps),
    await peer('c5', 'peer: json-server 0.17 (a JSON file)', startJsonServer, ceilingRps),
  ];
}

async function peer(id: string, what: string, start: () => Promise<Server | string>, ceilingRps: number): Promise<Row> {
  progress(what);
  let server: Server | string;
  try {
    server = await start();
  } catch (error) {
    return noteRow(
      id,
      what,
      `n/a (${String((error as Error).message)
        .split('\n')[0]
        ?.slice(0, 60)})`,
    );
  }
  if (typeof server === 'string') return noteRow(id, what, server);
  try {
    const result = await load(server, plan.serverSeconds);
    const failed = result.non2xx + result.errors;
    return {
      id,
      what,
      median: format.rate(result.rps, 'req/s') + (failed > 0 ? ` (${failed} not 2xx)` : ''),
      spread: '1 run',
      ratio: format.ratio(result.rps / ceilingRps),
      goal: '',
      result: '',
      cpu: result.cpuPerRequestUs === undefined ? '' : `${result.cpuPerRequestUs.toFixed(1)} µs`,
    };
  } finally {
    await server.stop();
  }
}

async function startPrism(): Promise<Server | string> {
  const spec = path.join(root, 'spec', 'plant-store.openapi.yaml');
  if (!existsSync(spec)) return 'n/a (spec/plant-store.openapi.yaml not found)';
  let prism: string;
  try {
    prism = require.resolve('@stoplight/prism-cli/dist/index.js');
  } catch {
    return 'n/a (@stoplight/prism-cli not installed)';
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startServer(
    'prism',
    node,
    [prism, 'mock', '-h', '127.0.0.1', '-p', String(port), '--verboseLevel', 'silent', spec],
    { cpu: serverCpu, probeUrl: `${url}/healthz`, timeoutMs: 60_000 },
  );
}

async function startJsonServer(): Promise<Server | string> {
  let bin: string;
  try {
    bin = require.resolve('json-server/lib/cli/bin.js');
  } catch {
    return 'n/a (json-server not installed)';
  }
  const dir = freshDir('json-server');
  const db = path.join(dir, 'db.json');
  writeFileSync(db, '{"plants":[]}\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startServer('json-server', node, [bin, '-H', '127.0.0.1', '-p', String(port), '-q', db], {
    cpu: serverCpu,
    probeUrl: `${url}/plants`,
  });
}
