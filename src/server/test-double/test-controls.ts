import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import * as z from 'zod/mini';
import { HttpError } from '../errors.js';
import type { Handler } from '../routes/route-context.js';
import { StoreUnavailableError } from '../stores/store-errors.js';
import { MAX_FAULT_SEED, seededRandom } from './prng.js';
import { type DelayRange, FAULT_KINDS, type FaultKind, type FaultRate, MAX_DELAY_MS } from './testing-options.js';

/** As GET /_serve/controls answers and PUT /_serve/controls takes them. */
export interface ControlsState {
  editable: boolean;
  /** Is POST /reset served? */
  reset: boolean;
  delay: DelayRange | null;
  faults: FaultRate[];
  faultSeed: number;
}

const MS = `must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`;
const wholeMs = () => z.int(MS).check(z.gte(0, MS), z.lte(MAX_DELAY_MS, MS));
const Delay = z
  .strictObject({ minMs: wholeMs(), maxMs: wholeMs() }, 'must be null (no delay) or an object {"minMs": …, "maxMs": …}')
  .check(z.refine((delay) => delay.minMs <= delay.maxMs, { message: 'minMs must not be more than maxMs' }));

const RATE = 'must be a number from 0 to 1 (the fraction of plant requests it meets)';
const FAULT = 'must be an object {"kind": …, "rate": …}';
const FAULTS = `must be a list of faults, each ${FAULT.replace('must be ', '')}`;
const SEED = `must be a whole number from 0 to ${MAX_FAULT_SEED}`;
export const ControlsUpdate = z.strictObject(
  {
    delay: z.optional(z.nullable(Delay)),
    faults: z.optional(
      z
        .array(
          z.strictObject(
            {
              kind: z.enum(FAULT_KINDS, `must be one of ${FAULT_KINDS.join(', ')}`),
              rate: z.number(RATE).check(z.gte(0, RATE), z.lte(1, RATE)),
            },
            {
              error: (issue) =>
                issue.code === 'unrecognized_keys'
                  ? `unknown field ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; a fault has kind and rate`
                  : FAULT,
            },
          ),
          FAULTS,
        )
        .check(
          z.refine((faults) => new Set(faults.map((fault) => fault.kind)).size === faults.length, {
            message: 'give each kind once',
          }),
          z.refine((faults) => faults.reduce((sum, fault) => sum + fault.rate, 0) <= 1 + 1e-9, {
            message: 'the rates add up to more than 1 (a request meets one fault at most)',
          }),
        ),
    ),
    faultSeed: z.optional(z.int(SEED).check(z.gte(0, SEED), z.lte(MAX_FAULT_SEED, SEED))),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; the fields are delay, faults and faultSeed`
        : 'the body must be a JSON object with delay, faults or faultSeed',
  },
);
export type ControlsUpdate = z.output<typeof ControlsUpdate>;

export type TestControls = ReturnType<typeof createTestControls>;

/**
 * Changeable while serving with --allow-reset, the flag that already says "this store is for tests". Each change
 * starts the draws afresh from the seed, so the same change and the same requests after it meet the same faults.
 */
export function createTestControls(options: {
  delay?: DelayRange | undefined;
  faults?: readonly FaultRate[] | undefined;
  faultSeed: number;
  editable: boolean;
  changeableFromCode?: boolean;
}) {
  let delay: DelayRange | null = options.delay ?? null;
  let faults: FaultRate[] = [...(options.faults ?? [])];
  let faultSeed = options.faultSeed;
  const made: Array<{ dropStalled(): void }> = [];
  const build = () => {
    const interceptor = createPlantInterceptor({ delay: delay ?? undefined, faults, faultSeed });
    if (interceptor !== undefined) made.push(interceptor);
    return interceptor;
  };
  let current = build();
  const state = (): ControlsState => ({
    editable: options.editable,
    reset: options.editable,
    delay: delay === null ? null : { ...delay },
    faults: faults.map((fault) => ({ ...fault })),
    faultSeed,
  });
  // Undefined when nothing can ever be injected; changeable, always on the path, since a fault may be switched on.
  const interceptor: PlantRequestInterceptor | undefined =
    options.editable || options.changeableFromCode === true
      ? (req, res, handle, fail) => {
          if (current !== undefined) return current(req, res, handle, fail);
          handle(req, res);
          return undefined;
        }
      : current;
  const checkEditable = () => {
    if (!options.editable) {
      throw new HttpError(
        403,
        'the controls are read-only on this server: start plants serve with --allow-reset to change them',
      );
    }
  };
  /** From the code that started the server (startStore), editable or not. */
  const apply = (update: ControlsUpdate): ControlsState => {
    if (update.delay !== undefined) delay = update.delay;
    if (update.faults !== undefined) faults = update.faults.filter((fault) => fault.rate > 0);
    if (update.faultSeed !== undefined) faultSeed = update.faultSeed;
    current = build();
    return state();
  };
  return {
    interceptor,
    state,
    checkEditable,
    update(body: unknown): ControlsState {
      checkEditable();
      const parsed = parseControlsUpdate(body);
      if ('issue' in parsed) throw new HttpError(400, `invalid controls: ${parsed.issue}`);
      return apply(parsed.update);
    },
    apply,
    /** Of every setting there was. */
    dropStalled() {
      for (const each of made) each.dropStalled();
    },
  };
}

export function parseControlsUpdate(body: unknown): { update: ControlsUpdate } | { issue: string } {
  const parsed = ControlsUpdate.safeParse(body);
  return parsed.success ? { update: parsed.data } : { issue: describeIssue(parsed.error) };
}

/** `faults[0].rate: must be a number from 0 to 1 (…)`: the first issue, where it is. */
function describeIssue(error: z.core.$ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'not an object of delay, faults and faultSeed';
  const where = issue.path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join('');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

/** Returns the fault drawn, for the request log. `fail` is the app's one error handler. */
export type PlantRequestInterceptor = (
  req: IncomingMessage,
  res: ServerResponse,
  handle: Handler,
  fail: (error: unknown) => void,
) => FaultKind | undefined;

/** Every plant request draws once, whatever it meets: the faults depend only on the seed and the requests' order. */
function createPlantInterceptor(options: {
  delay: DelayRange | undefined;
  faults: readonly FaultRate[];
  faultSeed: number;
}): (PlantRequestInterceptor & { dropStalled(): void }) | undefined {
  const faults = options.faults.filter((fault) => fault.rate > 0);
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
      // Read and drop the body, so that the connection stays sound.
      req.resume();
      return;
    case 'reset':
      // Carried out, then the answer is dropped with its connection. A pipelined answer has no socket until its
      // turn comes: dropped then.
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
