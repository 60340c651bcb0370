import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralLow, freePort, portSlice } from './ports.js';

// CI's Node 26 e2e run once found 127.0.0.1:41609 in use when serve.test restarted a server on the
// port it had stopped it on: a kernel-picked port, given meanwhile to another test's connection.
const low = ephemeralLow();

// A kernel whose ephemeral range starts low leaves no room below it: freePort takes the kernel's pick there.
describe.runIf(portSlice(0, low) !== undefined)('freePort', () => {
  it("gives ports below the kernel's ephemeral range, each once, free to listen on", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(low);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("keeps to this worker's slice, which no other worker's overlaps", async () => {
    const pool = Number(process.env.VITEST_POOL_ID ?? 0);
    const own = portSlice(pool, low);
    expect(own).toBeDefined();
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(own?.from ?? Number.NaN);
    expect(port).toBeLessThan(own?.to ?? Number.NaN);
    const all = Array.from({ length: 8 }, (_, worker) => portSlice(worker, low));
    for (const [index, slice] of all.entries()) {
      expect(slice?.to ?? Number.NaN).toBeLessThanOrEqual(low);
      for (const other of all.slice(index + 1))
        expect(other?.from ?? Number.NaN).toBeGreaterThanOrEqual(slice?.to ?? 0);
    }
  });
});
