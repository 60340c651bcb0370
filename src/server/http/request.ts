import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotImplementedError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';

/** The client went away before its body was complete: there is nobody to answer. */
export class ClientGoneError extends Error {}

/** RFC 9112 §3.2.2. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** A forward proxy sends the absolute form (`POST http://host/plants`); it routes by its path. */
export function pathOf(url: string | undefined): string {
  if (url === '/plants') return url;
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    const authority = ABSOLUTE_FORM.exec(target);
    if (authority !== null) target = target.slice(authority[0].length);
    if (!target.startsWith('/')) target = `/${target}`;
  }
  const path = target.split('?', 1)[0] ?? '/';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

export function searchOf(url: string | undefined): string {
  const index = url?.indexOf('?') ?? -1;
  return index === -1 || url === undefined ? '' : url.slice(index + 1);
}

/** A token-like id (a UUID, a trace id), not a sentence or markup. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Two of them, joined by node, are not sane. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const ip = address.startsWith('::ffff:') ? address.slice(7) : address;
  return ip === '::1' || ip.startsWith('127.');
}

/** node would hand us `gzip, chunked` still gzipped (RFC 9112 §6.1). */
export function checkTransferCoding(header: string): void {
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase());
  const other = codings.find((coding) => coding !== 'chunked');
  if (other !== undefined || codings.length !== 1) {
    throw new NotImplementedError(
      `transfer coding ${JSON.stringify((other ?? header).slice(0, 40))} is not supported; send the body with Content-Length or chunked alone`,
    );
  }
}

/** No content coding is decoded: Accept-Encoding: identity says what to send instead (RFC 9110 §15.5.16). */
export function checkContentEncoding(header: string | undefined): void {
  if (header === undefined) return;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return;
  throw new UnsupportedMediaTypeError(
    `content coding ${JSON.stringify((codings[0] ?? '').slice(0, 40))} is not supported; send the body unencoded`,
    { headers: { 'accept-encoding': 'identity' } },
  );
}

export function checkContentType(header: string | undefined): void {
  if (header === 'application/json') return;
  if (header === undefined || header.trim() === '') {
    throw new UnsupportedMediaTypeError('content-type must be application/json');
  }
  const [type = '', ...parameters] = header.split(';');
  const mediaType = type.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new UnsupportedMediaTypeError(`content-type must be application/json, not ${mediaType.slice(0, 100)}`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2);
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new UnsupportedMediaTypeError(`charset must be utf-8, not ${charset.slice(0, 40)}`);
    }
  }
}

/** Refuses past `limit` without keeping what comes after. Calls `done` exactly once. */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  done: (...result: [error: Error, body: undefined] | [error: undefined, body: Buffer]) => void,
): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    done(new PayloadTooLargeError(limit), undefined);
    return;
  }
  // Only now, with the token and the headers found good, is the client told to send its body.
  if (awaitsContinue(req)) {
    (req as ContinuedRequest)[kContinued] = true;
    res.writeContinue();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  // Once the body is in, the listeners may stay: a later 'close' finds the answer settled. A refusal midway takes
  // them off, so that the rest of the body can be thrown away.
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size > limit) {
      settled = true;
      req.off('data', onData);
      req.pause();
      done(new PayloadTooLargeError(limit), undefined);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (settled) return;
    settled = true;
    done(undefined, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  };
  const onClose = () => {
    if (settled) return;
    settled = true;
    done(new ClientGoneError(), undefined);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
  req.on('error', onClose);
}

const kContinued = Symbol('plants.continued');
type ContinuedRequest = IncomingMessage & { [kContinued]?: true };

/** node lets anything else through, or answers 417. */
export function awaitsContinue(req: IncomingMessage): boolean {
  return (
    req.httpVersion === '1.1' && req.headers.expect !== undefined && /^\s*100-continue\s*$/i.test(req.headers.expect)
  );
}

export function wasToldToContinue(req: IncomingMessage): boolean {
  return (req as ContinuedRequest)[kContinued] === true;
}

/** RFC 9112 §6.3: a request has a body only with Transfer-Encoding or a Content-Length above 0. */
export function hasBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (declared !== undefined && Number(declared) !== 0);
}
