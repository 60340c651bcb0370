import { InvalidInputError } from '../../errors.js';

/** `plants serve --fault KIND=RATE`'s kinds, as docs/testing.md tells them. */
export const FAULT_KINDS = ['503', 'reset', 'stall', 'truncate'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRate {
  kind: FaultKind;
  rate: number;
}

/** Each plant answer waits a uniform draw from the range. */
export interface DelayRange {
  minMs: number;
  maxMs: number;
}

/** Well inside what a timer holds. */
export const MAX_DELAY_MS = 600_000;

export function parseDelay(text: string): DelayRange {
  const match = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(text.trim());
  if (match === null) {
    throw new InvalidInputError(
      `--delay ${text}: give milliseconds, a whole number from 0 (250), or a range MIN-MAX (100-300)`,
    );
  }
  const minMs = Number(match[1]);
  const maxMs = match[2] === undefined ? minMs : Number(match[2]);
  if (minMs > maxMs) throw new InvalidInputError(`--delay ${text}: MIN is more than MAX (give ${maxMs}-${minMs})`);
  if (maxMs > MAX_DELAY_MS) throw new InvalidInputError(`--delay ${text}: at most ${MAX_DELAY_MS} ms (ten minutes)`);
  return { minMs, maxMs };
}

export function parseFault(text: string): FaultRate {
  const kinds = FAULT_KINDS.join(', ');
  const equals = text.indexOf('=');
  if (equals === -1) {
    throw new InvalidInputError(`--fault ${text}: give KIND=RATE, e.g. --fault 503=0.1 (kinds: ${kinds})`);
  }
  const kind = text.slice(0, equals).trim();
  const rateText = text.slice(equals + 1).trim();
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new InvalidInputError(`--fault ${text}: no fault kind ${JSON.stringify(kind)}; kinds: ${kinds}`);
  }
  const rate = /^(\d+(\.\d*)?|\.\d+)$/.test(rateText) ? Number(rateText) : Number.NaN;
  if (!(rate >= 0 && rate <= 1)) {
    throw new InvalidInputError(
      `--fault ${text}: RATE must be a fraction of plant requests from 0 to 1 (0.1: one in ten)`,
    );
  }
  return { kind: kind as FaultKind, rate };
}

export function parseFaults(texts: readonly string[]): FaultRate[] {
  const faults = texts.map(parseFault);
  const seen = new Set<FaultKind>();
  for (const fault of faults) {
    if (seen.has(fault.kind)) throw new InvalidInputError(`--fault ${fault.kind} is given twice; give each kind once`);
    seen.add(fault.kind);
  }
  const total = faults.reduce((sum, fault) => sum + fault.rate, 0);
  if (total > 1 + 1e-9) {
    throw new InvalidInputError(
      `--fault: the rates add up to ${Number(total.toFixed(6))}, more than 1 (a request meets one fault at most)`,
    );
  }
  return faults;
}

/** `503 30%, reset 20%`. */
export function describeFaults(faults: readonly FaultRate[]): string {
  return faults.map((fault) => `${fault.kind} ${Number((fault.rate * 100).toFixed(4))}%`).join(', ');
}

/** `250 ms` or `100-300 ms`. */
export function describeDelay(delay: DelayRange): string {
  return delay.minMs === delay.maxMs ? `${delay.minMs} ms` : `${delay.minMs}-${delay.maxMs} ms`;
}
