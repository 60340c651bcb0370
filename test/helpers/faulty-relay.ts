import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * Where to cut a connection: after `at(bytes)` bytes of what the client sent (`request`) or of
 * what the store answered (`answer`), counted from the connection's start. `at` is given the
 * bytes seen so far in that direction and returns the offset once it can tell (undefined until
 * then: the bytes are held back meanwhile).
 */
export interface CutPoint {
  side: 'request' | 'answer';
  at: (bytes: Buffer) => number | undefined;
}

export interface RelayFault {
  /** Cut each of the first `connections` connections here. */
  cut?: CutPoint;
  /**
   * Hold each of the first `connections` connections this long before passing anything on: a
   * TLS client meanwhile waits for its handshake, so undici writes no request on it.
   */
  holdMs?: number;
  connections: number;
}

export interface FaultyRelay {
  url: string;
  /** Connections cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

/**
 * A TCP relay on a loopback port in front of a real store (`target`, a `plants serve`): the first
 * `fault.connections` connections are held, then cut at `fault.cut` (both sides closed at once,
 * the bytes before the cut passed on); every later one is passed through whole.
 */
export async function startFaultyRelay(target: URL, fault: RelayFault): Promise<FaultyRelay> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let accepted = 0;
  let cuts = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    const faulty = accepted++ < fault.connections;
    const relay = () => {
      const upstream = tcpConnect(Number(target.port), target.hostname);
      sockets.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      const cut = faulty ? fault.cut : undefined;
      let seen = Buffer.alloc(0);
      let passed = 0;
      let done = false;
      const pass = (side: CutPoint['side'], to: Socket) => (chunk: Buffer) => {
        if (done) return;
        if (cut === undefined || side !== cut.side) {
          to.write(chunk);
          return;
        }
        seen = Buffer.concat([seen, chunk]);
        const at = cut.at(seen);
        if (at === undefined) return;
        if (at > passed) to.write(seen.subarray(passed, Math.min(at, seen.length)));
        passed = Math.min(at, seen.length);
        if (seen.length >= at) {
          done = true;
          cuts++;
          // Written first, then both ends closed: what came before the cut still arrives.
          to.end(() => end());
        }
      };
      client.on('data', pass('request', upstream));
      upstream.on('data', pass('answer', client));
      client.resume();
    };
    client.pause();
    client.on('error', () => client.destroy());
    if (!faulty || fault.holdMs === undefined) relay();
    else {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!client.destroyed) relay();
      }, fault.holdMs);
      timers.add(timer);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The end of the first HTTP message in `bytes` (its head and a Content-Length body), once all of it is there. */
export function firstMessageEnd(bytes: Buffer): number | undefined {
  const head = bytes.indexOf('\r\n\r\n');
  if (head < 0) return undefined;
  const length = /\r\ncontent-length: *(\d+)/i.exec(bytes.subarray(0, head).toString('latin1'));
  const end = head + 4 + Number(length?.[1] ?? 0);
  return bytes.length >= end ? end : undefined;
}
