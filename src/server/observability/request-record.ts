/** Once a request is answered, or its client gone. */
export interface RequestRecord {
  method: string;
  path: string;
  /** Query included: only the log reads it, and hides what looks secret. */
  target: string;
  /** A template (`/plants/{id}`) or `other`: few values, for metric labels. */
  route: string;
  /** 499 when the client went away before its answer. */
  status: number;
  durationMs: number;
  bytes: number;
  requestId: string;
  /** Logged only at the debug level. */
  probe: boolean;
  fault?: string | undefined;
}

export type RequestObserver = (record: RequestRecord) => void;
