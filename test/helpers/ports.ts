import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out on its own (for port 0 and for a connection's local end).
 * A port below it is never taken by another test's connection between our stop and our restart,
 * which a port the kernel picked for us can be.
 */
export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

const lowest = 20000;
/** Slices of the range below the kernel's: one for vitest's main process, one for each worker. */
const slices = 8;

/**
 * The ports vitest worker `pool` (VITEST_POOL_ID, 1 and up; 0 for the main process, where the
 * global setup runs) hands out: a slice of its own of the range below the kernel's, so that two
 * files running side by side never pick the same port. Undefined when the range is too small.
 */
export function portSlice(pool: number, high = ephemeralLow()): { from: number; to: number } | undefined {
  const size = Math.floor((high - lowest) / slices);
  if (size < 100) return undefined;
  const from = lowest + (pool % slices) * size;
  return { from, to: from + size };
}

/** The ports this process has handed out: none is handed out twice. */
const handedOut = new Set<number>();

/** The port a probe listened on when asked for `port` (0: the kernel's pick), or undefined if it could not. */
function probedPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      probe.close(() => resolve(bound));
    });
  });
}

/**
 * A loopback port nobody listens on just now, for a server a test starts (and may restart) on a
 * port of its own. Chosen below the kernel's ephemeral range, so that no connection is given it
 * as its local end meanwhile; in this worker's slice of that range, so that no file running
 * beside this one picks it; and never one this process handed out before, so that a server
 * stopped for a restart keeps its port. The kernel's pick only when there is no such range.
 */
export async function freePort(): Promise<number> {
  const slice = portSlice(Number(process.env.VITEST_POOL_ID ?? 0));
  if (slice !== undefined) {
    const span = slice.to - slice.from;
    const start = Math.floor(Math.random() * span);
    for (let step = 0; step < span; step++) {
      const port = slice.from + ((start + step) % span);
      if (handedOut.has(port)) continue;
      if ((await probedPort(port)) !== port) continue;
      handedOut.add(port);
      return port;
    }
  }
  const picked = await probedPort(0);
  if (picked === undefined) throw new Error('no loopback port is free');
  return picked;
}
