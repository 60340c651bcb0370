import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NotImplementedError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../src/server/errors.js';
import {
  ClientGoneError,
  checkContentEncoding,
  checkContentType,
  checkTransferCoding,
  isLoopbackAddress,
  pathOf,
  readBody,
  requestIdOf,
  searchOf,
} from '../../../src/server/http/request.js';

describe('the request target', () => {
  it.each([
    ['/plants', '/plants'],
    ['/plants?limit=5', '/plants'],
    ['/plants/12?x=1', '/plants/12'],
    ['http://store.example:4010/plants/7?x', '/plants/7'],
    ['https://store.example', '/'],
    ['plants', '/plants'],
    [undefined, '/'],
  ])('routes %s by its path %s', (url, path) => {
    expect(pathOf(url)).toBe(path);
  });

  it('cuts a long path short at 200 characters', () => {
    expect(pathOf(`/${'a'.repeat(500)}`)).toBe(`/${'a'.repeat(199)}…`);
  });

  it('takes the query without its ?', () => {
    expect(searchOf('/plants?limit=5&after=3')).toBe('limit=5&after=3');
    expect(searchOf('/plants')).toBe('');
    expect(searchOf(undefined)).toBe('');
  });
});

describe('the request id', () => {
  it('passes on a token-like X-Request-Id, and makes a UUID for anything else', () => {
    expect(requestIdOf('trace-1:abc/def+=')).toBe('trace-1:abc/def+=');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const header of [undefined, '', 'two words', '<b>', 'x'.repeat(129), ['a', 'b']]) {
      expect(requestIdOf(header)).toMatch(uuid);
    }
  });
});

describe('loopback addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::2', false],
    [undefined, false],
  ])('%s is loopback: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});

describe('framing and codings', () => {
  it('takes chunked alone, and refuses any other transfer coding with 501', () => {
    expect(() => checkTransferCoding('chunked')).not.toThrow();
    expect(() => checkTransferCoding(' Chunked ')).not.toThrow();
    for (const header of ['gzip, chunked', 'chunked, chunked', 'identity']) {
      expect(() => checkTransferCoding(header)).toThrow(NotImplementedError);
    }
  });

  it('takes no content coding or identity, and refuses gzip with 415 asking for identity', () => {
    for (const header of [undefined, 'identity', ' identity , ', '']) {
      expect(() => checkContentEncoding(header)).not.toThrow();
    }
    const refusal = (() => {
      try {
        checkContentEncoding('identity, gzip');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(refusal).toMatchObject({ status: 415, headers: { 'accept-encoding': 'identity' } });
    expect((refusal as Error).message).toContain('"gzip"');
  });

  it('takes application/json in utf-8 only', () => {
    for (const header of ['application/json', 'Application/JSON; charset="UTF-8"', 'application/json;charset=utf8']) {
      expect(() => checkContentType(header)).not.toThrow();
    }
    for (const header of [undefined, ' ', 'text/plain', 'application/json; charset=latin1']) {
      expect(() => checkContentType(header)).toThrow(UnsupportedMediaTypeError);
    }
  });
});

/** A loopback server whose every request is read by readBody with `limit`; resolves each outcome. */
async function readBodies(limit: number) {
  const outcomes: Array<Error | Buffer> = [];
  const waiting: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    readBody(req, res, limit, (error, body) => {
      outcomes.push(error ?? (body as Buffer));
      waiting.shift()?.();
      if (!res.destroyed) res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    next: () =>
      new Promise<Error | Buffer>((resolve) => waiting.push(() => resolve(outcomes.at(-1) as Error | Buffer))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function post(
  port: number,
  headers: Record<string, string | number>,
  write: (req: ReturnType<typeof request>) => void,
) {
  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  write(req);
  return req;
}

describe('readBody', () => {
  it('reads a body whole, with Content-Length and chunked', async () => {
    const server = await readBodies(64);
    try {
      let read = server.next();
      post(server.port, { 'content-length': 5 }, (req) => req.end('hello'));
      expect(String(await read)).toBe('hello');
      read = server.next();
      post(server.port, {}, (req) => {
        req.write('ab');
        req.end('cd');
      });
      expect(String(await read)).toBe('abcd');
    } finally {
      await server.close();
    }
  });

  it('refuses past the limit: at once from Content-Length, or as a chunked body grows past it', async () => {
    const server = await readBodies(8);
    try {
      let read = server.next();
      post(server.port, { 'content-length': 9 }, (req) => req.write('x'));
      expect(await read).toBeInstanceOf(PayloadTooLargeError);
      read = server.next();
      const chunkedReq = post(server.port, {}, (req) => req.write('0123456789'));
      expect(await read).toBeInstanceOf(PayloadTooLargeError);
      chunkedReq.destroy();
    } finally {
      await server.close();
    }
  });

  it('tells of a client gone before its body was complete', async () => {
    const server = await readBodies(64);
    try {
      const read = server.next();
      const req = post(server.port, { 'content-length': 10 }, (r) => r.write('abc'));
      setTimeout(() => req.destroy(), 50);
      expect(await read).toBeInstanceOf(ClientGoneError);
    } finally {
      await server.close();
    }
  });
});
