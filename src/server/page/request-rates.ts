import type { RequestRecord } from '../observability/request-record.js';

export const RATE_WINDOW_SECONDS = 300;

export type RequestRates = ReturnType<typeof createRequestRates>;

/** One-second buckets, fixed in size whatever the load. */
export function createRequestRates(options: { skip?: (record: RequestRecord) => boolean; now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const { skip } = options;
  const second = new Float64Array(RATE_WINDOW_SECONDS);
  const count = new Float64Array(RATE_WINDOW_SECONDS);
  const sumMs = new Float64Array(RATE_WINDOW_SECONDS);
  const maxMs = new Float64Array(RATE_WINDOW_SECONDS);
  return {
    record(record: RequestRecord): void {
      if (skip?.(record) === true) return;
      const at = Math.floor(now() / 1000);
      const slot = at % RATE_WINDOW_SECONDS;
      if (second[slot] !== at) {
        second[slot] = at;
        count[slot] = 0;
        sumMs[slot] = 0;
        maxMs[slot] = 0;
      }
      count[slot] = (count[slot] as number) + 1;
      sumMs[slot] = (sumMs[slot] as number) + record.durationMs;
      if (record.durationMs > (maxMs[slot] as number)) maxMs[slot] = record.durationMs;
    },
    /** Buckets as `[unix second, requests, mean ms, max ms]`, oldest first. */
    window() {
      const at = Math.floor(now() / 1000);
      const buckets: Array<[number, number, number, number]> = [];
      for (let t = at - RATE_WINDOW_SECONDS + 1; t <= at; t += 1) {
        const slot = t % RATE_WINDOW_SECONDS;
        const n = count[slot] as number;
        if (second[slot] !== t || n === 0) continue;
        const round = (ms: number) => Math.round(ms * 10) / 10;
        buckets.push([t, n, round((sumMs[slot] as number) / n), round(maxMs[slot] as number)]);
      }
      return { now: at, seconds: RATE_WINDOW_SECONDS, buckets };
    },
  };
}
