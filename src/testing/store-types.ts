// Declared here whole, so that `plants/testing`'s .d.ts import nothing; the server's types must accept them.

/** A plant to seed the store with: a NewPlant of the interface, its id a bigint or a safe integer. */
export interface SeedPlant {
  id: bigint | number;
  name: string;
  tag?: string;
}

/** What `plants serve --fault` injects into plant requests (docs/testing.md). */
export type FaultKind = '503' | 'reset' | 'stall' | 'truncate';

export interface Fault {
  kind: FaultKind;
  /** The fraction of plant requests it meets, from 0 to 1; the rates together at most 1. */
  rate: number;
}

/** Each answer of a plant route waits a uniform draw from this range, in milliseconds. */
export interface Delay {
  minMs: number;
  maxMs: number;
}

/** What startStore takes: the test-double flags of `plants serve`, under the same names. */
export interface StoreOptions {
  /** The bearer token the store accepts (serve --token). Default: a random one, this store's own. */
  token?: string;
  /**
   * Plants put in before it serves (serve --seed), or a seed file's path (NDJSON, a JSON array or one object);
   * reset puts them back. Default: none.
   */
  seed?: readonly SeedPlant[] | string;
  /** A SQLite database file to keep the plants in (serve --db). Default: in memory, this store's own. */
  db?: string;
  /** A database URL (serve --database): `postgres://…`, `postgresql://…` or `file:…`. Not with `db`. */
  database?: string;
  /** Milliseconds each answer of a plant route waits (serve --delay): a number, or a range. Default: none. */
  delay?: number | Delay;
  /** Faults injected into plant requests (serve --fault). Default: none. */
  faults?: readonly Fault[];
  /** Seeds the fault and delay draws (serve --fault-seed), so that a run can be replayed. Default 0. */
  faultSeed?: number;
  /** Serve POST /reset and let PUT /_serve/controls change the delay and faults (serve --allow-reset). Default false. */
  allowReset?: boolean;
}

/** The delay and faults in force, as GET /_serve/controls answers them. */
export interface StoreControls {
  delay: Delay | null;
  faults: Fault[];
  faultSeed: number;
}

/** A change of controls: each field given replaces the one in force (`delay: null` ends the delay). */
export interface StoreControlsUpdate {
  delay?: number | Delay | null;
  faults?: readonly Fault[];
  faultSeed?: number;
}

/** One answered request, as GET /_serve/journal lists it. */
export interface JournalEntry {
  /** 1, 2, 3…: the order requests were answered in. */
  seq: number;
  /** When the answer ended (or the client went), ISO 8601 in UTC. */
  time: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  /** The fault injected, if any. */
  fault?: string;
}

/** A plant store of its own, on a free loopback port: the server of `plants serve`, in this process. */
export interface Store {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  /** The bearer token it accepts. */
  readonly token: string;
  /** Puts the store back to its seed (or empty), as POST /reset does. */
  reset(): Promise<void>;
  /** The delay and faults in force. */
  controls(): StoreControls;
  /** Sets or clears the delay and faults (allowReset or not); a bad update is a TypeError naming the field. */
  setControls(update: StoreControlsUpdate): StoreControls;
  /** The requests answered so far (the newest 1000 at most), oldest first: GET /_serve/journal's entries. */
  journal(): JournalEntry[];
  /** Lets requests in flight finish, then closes the port and the store; leaves no handle open. Safe to call twice. */
  close(): Promise<void>;
  /** close(), for `await using store = await startStore()`. */
  [Symbol.asyncDispose](): Promise<void>;
}
