import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Handler } from '../routes/route-context.js';
import { StoreUnavailableError } from '../stores/store-errors.js';
import { seededRandom } from './prng.js';
import type { DelayRange, FaultKind, FaultRate } from './testing-options.js';

/**
 * Runs one plant request the way --delay and --fault say: after its delay, with the fault its
 * draw came to (or none). Returns that fault, for the request log. `fail` answers an error the
 * way the app does (the one error handler).
 */
export type PlantRequestInterceptor = (
  req: IncomingMessage,
  res: ServerResponse,
  handle: Handler,
  fail: (error: unknown) => void,
) => FaultKind | undefined;

export interface PlantFaultOptions {
  delay?: DelayRange | undefined;
  faults?: readonly FaultRate[] | undefined;
  /** Seeds the draws: the same seed and the same requests, in the same order, meet the same faults. */
  faultSeed: number;
}

/**
 * The interceptor of `plants serve --delay/--fault`, or undefined when neither asks for
 * anything: then the app calls the handlers directly and none of this is on the request path.
 * Every plant request draws one number from the fault sequence, whatever it meets, so that the
 * faults depend only on the seed and the order the requests came in.
 */
export function createPlantInterceptor(
  options: PlantFaultOptions,
): (PlantRequestInterceptor & { dropStalled(): void }) | undefined {
  const faults = (options.faults ?? []).filter((fault) => fault.rate > 0);
  const delay = options.delay !== undefined && options.delay.maxMs > 0 ? options.delay : undefined;
  if (faults.length === 0 && delay === undefined) return undefined;
  const drawFault = seededRandom(options.faultSeed);
  // Delays draw from a sequence of their own, so that turning --delay on does not move the faults.
  const drawDelay = seededRandom(options.faultSeed ^ 0x9e3779b9);
  const bounds: Array<{ below: number; kind: FaultKind }> = [];
  let total = 0;
  for (const fault of faults) {
    total += fault.rate;
    bounds.push({ below: total, kind: fault.kind });
  }
  // Stalled requests are never answered: at a stop they are dropped rather than waited for.
  const stalled = new Set<ServerResponse>();
  const intercept: PlantRequestInterceptor = (req, res, handle, fail) => {
    let fault: FaultKind | undefined;
    if (bounds.length > 0) {
      const draw = drawFault();
      fault = bounds.find((bound) => draw < bound.below)?.kind;
    }
    const run = () => {
      // A client that gave up during the delay left nothing to answer.
      if (res.destroyed) return;
      if (fault === 'stall') {
        stalled.add(res);
        res.once('close', () => stalled.delete(res));
      }
      inject(fault, req, res, handle, fail);
    };
    if (delay === undefined) run();
    else setTimeout(run, delay.minMs + Math.floor(drawDelay() * (delay.maxMs - delay.minMs + 1)));
    return fault;
  };
  return Object.assign(intercept, {
    dropStalled() {
      for (const res of stalled) res.socket?.destroy();
    },
  });
}

function inject(
  fault: FaultKind | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  handle: Handler,
  fail: (error: unknown) => void,
): void {
  switch (fault) {
    case '503':
      fail(new StoreUnavailableError('the store is unavailable (a fault injected by plants serve --fault 503)'));
      return;
    case 'stall':
      // Read and drop the body, so the connection stays sound, and never answer.
      req.resume();
      return;
    case 'reset':
      // Carried out (an add committed) before the answer is dropped with its connection. An
      // answer behind others on a pipelined connection has no socket until its turn comes: the
      // connection is dropped then, where this answer would have gone out (never left hanging).
      res.end = (() => {
        if (res.socket !== null) res.socket.destroy();
        else res.once('socket', (socket: Socket) => socket.destroy());
        return res;
      }) as ServerResponse['end'];
      break;
    case 'truncate':
      res.end = ((chunk?: unknown) => {
        const body = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.alloc(0);
        // The head declares the whole length; half the body follows, then the connection goes.
        res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
        return res;
      }) as ServerResponse['end'];
      break;
    default:
      break;
  }
  try {
    handle(req, res);
  } catch (error) {
    fail(error);
  }
}
