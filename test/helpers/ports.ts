import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out on its own (for port 0 and for a connection's local end).
 * A port below it is never taken by another test's connection between our stop and our restart,
 * which a port the kernel picked for us can be.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

const lowest = 20000;

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
 * port of its own: chosen below the kernel's ephemeral range when there is room, so nothing else
 * in the run is given it meanwhile.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high - lowest >= 1000) {
    for (let tries = 0; tries < 50; tries++) {
      const port = lowest + Math.floor(Math.random() * (high - lowest));
      if ((await probedPort(port)) === port) return port;
    }
  }
  const picked = await probedPort(0);
  if (picked === undefined) throw new Error('no loopback port is free');
  return picked;
}
