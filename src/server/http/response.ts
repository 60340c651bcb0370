import type { ServerResponse } from 'node:http';
import type { ErrorBody } from '../../schema/plant.js';

export function errorBody(status: number, message: string, outcome?: ErrorBody['outcome']): string {
  const body: ErrorBody = outcome === undefined ? { error: status, message } : { error: status, message, outcome };
  return JSON.stringify(body);
}

export function sendJson(res: ServerResponse, status: number, body: string): void {
  sendBody(res, status, 'application/json', body);
}

export function sendBody(res: ServerResponse, status: number, contentType: string, body: string): void {
  // writeHead with an object: one validation pass, where four setHeader calls would make two.
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}
