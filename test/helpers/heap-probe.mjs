// Loaded into a CLI child with NODE_OPTIONS=--import=<this file>: writes, at exit, the largest
// young generation (V8's new space, bytes) seen after any collection, to $PLANTS_TEST_HEAP_PROBE.
import { writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

let largest = 0;
const young = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
new PerformanceObserver(() => {
  largest = Math.max(largest, young());
}).observe({ entryTypes: ['gc'] });
process.on('exit', () => {
  largest = Math.max(largest, young());
  writeFileSync(
    process.env.PLANTS_TEST_HEAP_PROBE ?? '/dev/null',
    JSON.stringify({ young: largest, node: process.version }),
  );
});
