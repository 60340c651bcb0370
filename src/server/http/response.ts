import type { ServerResponse } from 'node:http';

/** The Error body of the interface: `{"error": status, "message": …}`. */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: status, message });
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
