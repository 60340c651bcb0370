import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Handler } from './routes/route-context.js';

/** What a request may overlap on its connection: `append` overlaps appends, which the store applies in call order. */
type Kind = 'read' | 'append' | 'write';

interface ConnectionQueue {
  running: Record<Kind, number>;
  waiting: Array<{ kind: Kind; start(): void }>;
}

const kQueue = Symbol('plants.connectionQueue');
type QueuedSocket = Socket & { [kQueue]?: ConnectionQueue };

/**
 * node:http emits every pipelined request as soon as it is parsed, so a later request could take effect before an
 * earlier one (a GET answering 404 for the plant a POST before it was about to store). RFC 9112 §9.3.2 lets a
 * server overlap only safe methods.
 */
export function inConnectionOrder(handler: Handler, isAppend: (req: IncomingMessage) => boolean): Handler {
  return (req, res) => {
    const socket = req.socket as QueuedSocket;
    let queue = socket[kQueue];
    if (queue === undefined) {
      queue = { running: { read: 0, append: 0, write: 0 }, waiting: [] };
      socket[kQueue] = queue;
    }
    const kind: Kind = req.method === 'GET' || req.method === 'HEAD' ? 'read' : isAppend(req) ? 'append' : 'write';
    const own = queue;
    const start = () => {
      own.running[kind] += 1;
      res.once('close', () => {
        own.running[kind] -= 1;
        startWaiting(own);
      });
      handler(req, res);
    };
    if (queue.waiting.length === 0 && mayStart(queue, kind)) start();
    else queue.waiting.push({ kind, start });
  };
}

function mayStart(queue: ConnectionQueue, kind: Kind): boolean {
  const { read, append, write } = queue.running;
  if (write > 0) return false;
  if (kind === 'read') return append === 0;
  if (kind === 'append') return read === 0;
  return read === 0 && append === 0;
}

function startWaiting(queue: ConnectionQueue): void {
  for (let next = queue.waiting[0]; next !== undefined && mayStart(queue, next.kind); next = queue.waiting[0]) {
    queue.waiting.shift();
    next.start();
  }
}
