import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantStore } from '../stores/plant-store.js';

/** Answers, or throws (synchronously) for the one error handler; later failures go to it by callback. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, fail: (error: unknown) => void) => void;

export interface RouteContext {
  store: Pick<PlantStore, 'add' | 'page' | 'get' | 'remove' | 'check'>;
  authorize: (header: string | undefined) => void;
  maxBodyBytes: number;
  fail: (req: IncomingMessage, res: ServerResponse, error: unknown) => void;
  /** For a store call that rejected: counted for the metrics, then answered by `fail`. */
  failed: (req: IncomingMessage, res: ServerResponse) => (error: unknown) => void;
}
