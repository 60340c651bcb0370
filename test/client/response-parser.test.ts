import { describe, expect, it } from 'vitest';
import { ResponseParser, ResponseProtocolError } from '../../src/client/response-parser.js';

interface Parsed {
  status: number;
  headers: string[];
  statusText: string;
  body: string;
  keepAlive?: boolean;
}

/** Parses `wire` in pieces of `size` bytes (every split a connection could make); what came out, answer by answer. */
function parse(wire: string, size: number, options: { close?: boolean } = {}): Parsed[] {
  const answers: Parsed[] = [];
  const parser = new ResponseParser({
    onHead: (status, headers, statusText) => answers.push({ status, headers, statusText, body: '' }),
    onBody: (chunk) => {
      const last = answers[answers.length - 1] as Parsed;
      last.body += chunk.toString('latin1');
    },
    onEnd: (keepAlive) => {
      (answers[answers.length - 1] as Parsed).keepAlive = keepAlive;
    },
  });
  const bytes = Buffer.from(wire, 'latin1');
  for (let at = 0; at < bytes.length; at += size) parser.execute(bytes.subarray(at, at + size));
  if (options.close) parser.finish();
  return answers;
}

/** The same answers whatever the pieces: whole, byte by byte, and in a few sizes between. */
function parseEveryWay(wire: string, options: { close?: boolean } = {}): Parsed[] {
  const whole = parse(wire, wire.length, options);
  for (const size of [1, 2, 3, 7, 16, 64]) expect(parse(wire, size, options)).toEqual(whole);
  return whole;
}

function protocolError(wire: string, options: { close?: boolean } = {}): ResponseProtocolError {
  for (const size of [wire.length, 1]) {
    try {
      parse(wire, size, options);
    } catch (error) {
      if (size === 1) return error as ResponseProtocolError;
      expect(error).toBeInstanceOf(ResponseProtocolError);
      continue;
    }
    throw new Error(`parsed without error (pieces of ${size})`);
  }
  throw new Error('unreachable');
}

const plant = '{"id":9223372036854775807,"name":"Fern"}';

describe('ResponseParser', () => {
  it('reads pipelined answers framed by content-length, in order, with their headers as sent', () => {
    const one = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: ${plant.length}\r\n\r\n${plant}`;
    const two = 'HTTP/1.1 409 Conflict\r\ncontent-length: 2\r\nRetry-After:  5 \r\n\r\n{}';
    const answers = parseEveryWay(one + two);
    expect(answers).toEqual([
      {
        status: 200,
        statusText: 'OK',
        headers: ['Content-Type', 'application/json', 'content-length', String(plant.length)],
        body: plant,
        keepAlive: true,
      },
      {
        status: 409,
        statusText: 'Conflict',
        headers: ['content-length', '2', 'Retry-After', '5'],
        body: '{}',
        keepAlive: true,
      },
    ]);
  });

  it('reads chunked answers (extensions and trailers too) and goes on to the next', () => {
    const chunked =
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' +
      '5;name=x\r\n{"id"\r\n' +
      `${(plant.length - 5).toString(16)}\r\n${plant.slice(5)}\r\n` +
      '0\r\nx-trailer: yes\r\n\r\n';
    const after = 'HTTP/1.1 400 Bad Request\r\ncontent-length: 4\r\n\r\n{"a"';
    const empty = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    const answers = parseEveryWay(chunked + after + empty);
    expect(answers.map(({ status, body, keepAlive }) => ({ status, body, keepAlive }))).toEqual([
      { status: 200, body: plant, keepAlive: true },
      { status: 400, body: '{"a"', keepAlive: true },
      { status: 200, body: '', keepAlive: true },
    ]);
  });

  it('reads an answer with no length to the end of the connection, and says the connection ends', () => {
    const answers = parseEveryWay(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${plant}`, { close: true });
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body).toBe(plant);
    expect(answers[0]?.keepAlive).toBe(false);
    // A transfer coding other than chunked last: also to the end.
    const gzip = parseEveryWay('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nabc', { close: true });
    expect(gzip[0]?.body).toBe('abc');
  });

  it('skips 1xx answers, reads 204 and 304 without a body, and keeps HTTP/1.0 only when asked', () => {
    const answers = parseEveryWay(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n' +
        'HTTP/1.1 204 No Content\r\n\r\n' +
        'HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n' +
        'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\ncontent-length: 0\r\n\r\n' +
        'HTTP/1.1 200 OK\r\nconnection: Close\r\ncontent-length: 0\r\n\r\n',
    );
    expect(answers.map(({ status, body, keepAlive }) => ({ status, body, keepAlive }))).toEqual([
      { status: 204, body: '', keepAlive: true },
      { status: 304, body: '', keepAlive: true },
      { status: 200, body: '', keepAlive: true },
      { status: 200, body: '', keepAlive: false },
    ]);
    expect(parseEveryWay('HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n')[0]?.keepAlive).toBe(false);
  });

  it("remembers the server's keep-alive time-out", () => {
    const parser = new ResponseParser({ onHead() {}, onBody() {}, onEnd() {} });
    parser.execute(Buffer.from('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\ncontent-length: 0\r\n\r\n'));
    expect(parser.keepAliveHintSeconds).toBe(5);
    expect(parser.idle).toBe(true);
  });

  it.each([
    ['a status line that is not HTTP/1.x', 'HTTP/2 200 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['garbage', 'hello world\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\na: b\r\n c\r\ncontent-length: 0\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a bad content-length', 'HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH'],
    [
      'two different content-lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    [
      'content-length beside transfer-encoding',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['a chunk longer than it said', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n', 'HPE_STRICT'],
    ['an unasked-for 101', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a head longer than 16 KiB', `HTTP/1.1 200 OK\r\nx: ${'a'.repeat(17 * 1024)}\r\n\r\n`, 'UND_ERR_HEADERS_OVERFLOW'],
  ])('refuses %s (%s)', (_what, wire, code) => {
    expect(protocolError(wire).code).toBe(code);
  });

  it('says an answer cut short by the end of the connection is cut', () => {
    expect(protocolError('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc', { close: true }).code).toBe(
      'UND_ERR_SOCKET',
    );
    expect(protocolError('HTTP/1.1 200 OK\r\ncontent-le', { close: true }).code).toBe('UND_ERR_SOCKET');
  });

  it('stops reading once stopped, mid-chunk', () => {
    const seen: number[] = [];
    const parser = new ResponseParser({
      onHead: (status) => {
        seen.push(status);
        parser.stop();
      },
      onBody() {},
      onEnd() {},
    });
    parser.execute(
      Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n'),
    );
    expect(seen).toEqual([200]);
    expect(parser.finish()).toBe(false);
  });
});
