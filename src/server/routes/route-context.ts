import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantStore } from '../stores/plant-store.js';

/** Answers, or throws (synchronously) for the one error handler; later failures go to it by callback. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A handler of another module: answers, or throws (synchronously), or hands a later failure to `fail`. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, fail: (error: unknown) => void) => void;

/** What the app gives its route modules. */
export interface RouteContext {
  /** Where plants are kept: SQLite or PostgreSQL, the handlers cannot tell. */
  store: Pick<PlantStore, 'add' | 'page' | 'get' | 'remove' | 'check'>;
  /** Throws UnauthorizedError unless the header carries one of the store's tokens. */
  authorize: (header: string | undefined) => void;
  /** Bodies larger than this are refused with 413. */
  maxBodyBytes: number;
  /** The app's one error mapper: answers `error` with its status and an Error body. */
  fail: (req: IncomingMessage, res: ServerResponse, error: unknown) => void;
  /** For a store call that rejected: counted for the metrics, then answered by `fail`. */
  failed: (req: IncomingMessage, res: ServerResponse) => (error: unknown) => void;
}
