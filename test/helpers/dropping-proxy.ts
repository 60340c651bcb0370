import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

export interface DroppingProxyOptions {
  /**
   * Whether to drop the answer to this POST: it is forwarded to the store (which applies it),
   * and the client's connection is then closed before any answer, as when a server dies between
   * its commit and its answer.
   */
  dropAnswer?: (body: string) => boolean;
  /** After the first dropped answer, stop listening: every later connection is refused. */
  refuseAfterDrop?: boolean;
  /**
   * Answer GET /plants/{id} with this status instead of forwarding it (404 or 405), and a 409
   * with the Error record only (as plainConflict): a plant store that implements only the seed's
   * POST /plants.
   */
  noGet?: 404 | 405;
  /** Pass a 409 on as the seed's Error record only, without the stored plant `plants serve` adds. */
  plainConflict?: boolean;
}

export interface DroppingProxy {
  url: string;
  /** The POST answers dropped so far. */
  readonly dropped: number;
  /** The GET /plants/{id} requests seen. */
  readonly reads: number;
  close(): Promise<void>;
}

/**
 * A real store with a fault in the network between it and the client: an HTTP proxy on a
 * loopback port that forwards every request to `target` (a `plants serve`), but drops the
 * answers the test picks after the store has applied them, and can play a store with no GET.
 */
export async function startDroppingProxy(target: string, options: DroppingProxyOptions = {}): Promise<DroppingProxy> {
  let dropped = 0;
  let reads = 0;
  const sockets = new Set<Socket>();
  let closed = false;
  const stopListening = () => {
    if (closed) return;
    closed = true;
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = req.url ?? '/';
    if (req.method === 'GET' && /^\/plants\/[^/?]+$/.test(url)) {
      reads++;
      if (options.noGet !== undefined) {
        const text =
          options.noGet === 404
            ? '{"error":404,"message":"not found"}'
            : '{"error":405,"message":"method not allowed"}';
        res.writeHead(options.noGet, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          ...(options.noGet === 405 ? { allow: 'POST' } : {}),
        });
        res.end(text);
        return;
      }
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'accept']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await request(`${target}${url}`, {
      method: req.method as 'GET' | 'POST' | 'DELETE',
      headers,
      body: req.method === 'POST' ? body : undefined,
    });
    let text = await answer.body.text();
    if (answer.statusCode === 409 && (options.plainConflict === true || options.noGet !== undefined)) {
      text = text.replace(/,"plant":\{.*\}\}$/s, '}');
    }
    if (req.method === 'POST' && options.dropAnswer?.(body) === true) {
      dropped++;
      req.socket.destroy();
      if (options.refuseAfterDrop === true) stopListening();
      return;
    }
    res.writeHead(answer.statusCode, {
      'content-type': String(answer.headers['content-type'] ?? 'application/json'),
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get dropped() {
      return dropped;
    },
    get reads() {
      return reads;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) {
          resolve();
          return;
        }
        closed = true;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
