/** What the app knows of a request once it is answered, or its client gone: the log and the metrics read it. */
export interface RequestRecord {
  method: string;
  /** The path without the query, cut short (as 404 messages show it). */
  path: string;
  /** The request target as sent, query included: only the log reads it, and hides what looks secret. */
  target: string;
  /** The route it matched, as a template (`/plants/{id}`), or `other`: few values, for metric labels. */
  route: string;
  /** The status sent, or 499 when the client went away before its answer. */
  status: number;
  durationMs: number;
  bytes: number;
  /** The client's sane X-Request-Id, else one made up; the answer carries it back. */
  requestId: string;
  /** A probe (/healthz, /livez, /readyz): logged only at the debug level. */
  probe: boolean;
  /** The fault serve --fault injected into it (`503`, `reset`, `stall`, `truncate`), if any. */
  fault?: string | undefined;
}

export type RequestObserver = (record: RequestRecord) => void;
