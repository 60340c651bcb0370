// One SQLite driver under one load, in a process of its own: `node sqlite-driver-load.mjs DRIVER
// LOAD FOLDER COUNT`, DRIVER better-sqlite3 or node:sqlite, LOAD one of:
//   group-commit: COUNT adds into a `full` store in a file (commits on the worker thread), 64 at a
//                 time, as 64 connections' requests arrive;
//   bulk:         COUNT adds into a `normal` store in a file, 512 at a time, as a pipelined bulk add;
//   list:         COUNT plants put in by replaceAll, then read back in pages of 1,000.
// Prints one JSON line: the CPU time (user + system, ms) and the wall time of the load alone.
import { cpuUsage } from 'node:process';
import { pathToFileURL } from 'node:url';

const [driver, load, folder, countText] = process.argv.slice(2);
const count = Number(countText);
const root = new URL('..', import.meta.url);
const { SqlitePlantStore } = await import(
  new URL('dist/server/stores/sqlite/sqlite-plant-store.js', pathToFileURL(`${root.pathname}`)).href
);
const plant = (index) => ({
  id: BigInt(index + 1),
  name: `plant ${index + 1}`,
  tag: index % 3 === 0 ? 'herb' : undefined,
});
const store = await SqlitePlantStore.open(`${folder}/plants.db`, {
  durability: load === 'group-commit' ? 'full' : 'normal',
  driver,
});

const cpuBefore = cpuUsage();
const started = performance.now();
if (load === 'list') {
  await store.replaceAll(Array.from({ length: count }, (_, index) => plant(index)));
} else {
  const burst = load === 'group-commit' ? 64 : 512;
  for (let next = 0; next < count; next += burst) {
    const adds = [];
    for (let index = next; index < Math.min(count, next + burst); index++) adds.push(store.add(plant(index)));
    await Promise.all(adds);
  }
}
const listStarted = performance.now();
const listCpu = cpuUsage();
let read = 0;
if (load === 'list') {
  let after;
  for (;;) {
    const page = await store.page(after, 1000);
    if (page.length === 0) break;
    read += page.length;
    after = page.at(-1).id;
  }
}
const cpu = cpuUsage(load === 'list' ? listCpu : cpuBefore);
const ms = performance.now() - (load === 'list' ? listStarted : started);
await store.close();
console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, ms, read }));
