// The rows of plants/testing's start: in one process, round after round, a bare node:http server
// started on a free loopback port and closed (the floor), then a store of startStore started and
// closed, each start timed until it listens. Prints {"first":ms,"floor":[ms…],"store":[ms…]}:
// first is the store's start in round one, its modules loaded on the way.
// argv: <dist/testing/index.js> <rounds> <warm-up rounds>
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const [entry, rounds, warmup] = process.argv.slice(2);
const { startStore } = await import(pathToFileURL(entry).href);

async function floorStart() {
  const begun = performance.now();
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ms = performance.now() - begun;
  await new Promise((resolve) => server.close(resolve));
  return ms;
}

async function storeStart() {
  const begun = performance.now();
  const store = await startStore();
  const ms = performance.now() - begun;
  await store.close();
  return ms;
}

const times = { first: 0, floor: [], store: [] };
for (let round = 0; round < Number(warmup) + Number(rounds); round++) {
  const floor = await floorStart();
  const store = await storeStart();
  if (round === 0) times.first = store;
  if (round < Number(warmup)) continue;
  times.floor.push(floor);
  times.store.push(store);
}
process.stdout.write(JSON.stringify(times));
