import net from 'node:net';
import { request } from 'undici';
import { parseJsonExact } from '../../src/schema/exact-json.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed exactly (ids as bigint when past 2^53); undefined when not JSON. */
  json: unknown;
}

function parseOrUndefined(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch {
    return undefined;
  }
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface SendOptions {
  method?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP request with undici; never throws on a status. */
export async function send(url: string, options: SendOptions = {}): Promise<Answer> {
  const response = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers,
    body: options.body,
  });
  const text = await response.body.text();
  const headers = flatten(response.headers);
  return { status: response.statusCode, headers, text, json: parseOrUndefined(text) };
}

/** POST /plants with a JSON body text (sent as is) and the token, unless headers say otherwise. */
export function postPlant(
  baseUrl: string,
  token: string | undefined,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const all: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (token !== undefined && all.authorization === undefined) all.authorization = `Bearer ${token}`;
  return send(`${baseUrl}/plants`, { method: 'POST', body, headers: all });
}

export interface RawAnswer {
  /** Everything the server sent. */
  raw: string;
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection. */
  closed: boolean;
}

/** Splits the first HTTP response out of raw bytes; undefined until headers and body are complete. */
export function parseRawResponse(
  raw: string,
): { status: number; headers: Record<string, string>; body: string } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = raw.slice(end + 4);
  if (Buffer.byteLength(body) < length) return undefined;
  return { status, headers, body: body.slice(0, length) };
}

/** Every complete response in raw bytes, in order (a pipelined connection answers several). */
export function parseRawResponses(
  raw: string,
): Array<{ status: number; headers: Record<string, string>; body: string }> {
  const answers: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
  let rest = raw;
  for (;;) {
    const parsed = parseRawResponse(rest);
    if (parsed === undefined) return answers;
    answers.push(parsed);
    const end = rest.indexOf('\r\n\r\n') + 4;
    rest = rest.slice(end + parsed.body.length);
  }
}

/**
 * How long the waits below wait, by default, for what should come at once: a loaded machine can
 * be seconds late; a check that something does not come passes its own, shorter, time.
 */
const WAIT_MS = 10_000;

/** A raw TCP connection, for requests undici would not send (malformed, slow, cut off). */
export class RawConnection {
  readonly socket: net.Socket;
  #raw = '';
  #closed = false;
  #error: Error | undefined;
  readonly #ready: Promise<void>;
  readonly #closedPromise: Promise<void>;

  /** `allowHalfOpen`: keep writing after the server has ended its half of the connection. */
  constructor(port: number, host = '127.0.0.1', options: { allowHalfOpen?: boolean } = {}) {
    this.socket = net.connect({ port, host, allowHalfOpen: options.allowHalfOpen ?? false });
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.#raw += chunk;
    });
    this.socket.on('error', (error) => {
      this.#error ??= error;
    });
    this.#closedPromise = new Promise((resolve) => {
      this.socket.on('close', () => {
        this.#closed = true;
        resolve();
      });
    });
    this.#ready = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  async write(data: string | Buffer): Promise<void> {
    await this.#ready;
    await new Promise<void>((resolve, reject) =>
      this.socket.write(data, (error) => (error ? reject(error) : resolve())),
    );
  }

  get raw(): string {
    return this.#raw;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The first socket error (a reset, say), if any. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Ends our half of the connection (FIN). */
  end(): void {
    this.socket.end();
  }

  /** Resolves when the server has closed the connection, or after timeoutMs. */
  async waitForClose(timeoutMs = WAIT_MS): Promise<boolean> {
    await Promise.race([this.#closedPromise, sleep(timeoutMs)]);
    return this.#closed;
  }

  /** Resolves with the first complete response, or undefined after timeoutMs. */
  async waitForResponse(timeoutMs = WAIT_MS): Promise<RawAnswer | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const parsed = parseRawResponse(this.#raw);
      if (parsed !== undefined) return { raw: this.#raw, ...parsed, closed: this.#closed };
      if (this.#closed) break;
      await sleep(10);
    }
    const parsed = parseRawResponse(this.#raw);
    return parsed === undefined ? undefined : { raw: this.#raw, ...parsed, closed: this.#closed };
  }

  /** Resolves with the first `count` responses once they are all in, or what came after timeoutMs. */
  async waitForResponses(count: number, timeoutMs = WAIT_MS): Promise<ReturnType<typeof parseRawResponses>> {
    await waitUntil(() => parseRawResponses(this.#raw).length >= count || this.#closed, timeoutMs).catch(() => {});
    return parseRawResponses(this.#raw);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until check() is true, or throws after timeoutMs. */
export async function waitUntil(check: () => boolean, timeoutMs = WAIT_MS, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
