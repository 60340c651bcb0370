import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  admitRequest,
  answerClientError,
  closeAfterAnswer,
  closeIfIdle,
  trackResponse,
} from '../../../src/server/http/connection.js';

/**
 * A loopback server that answers parser errors with answerClientError, and holds every request it
 * carries out (admitRequest's say).
 */
async function serverWith(onRequest: (res: ServerResponse) => void) {
  const server = createServer({ maxHeaderSize: 1024 }, (req, res) => {
    if (!admitRequest(req, res, false)) return;
    trackResponse(req, res);
    onRequest(res);
  });
  server.on('clientError', answerClientError);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, server };
}

/** Writes `bytes` on a new connection and reads until the server closes it. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.end(bytes);
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk) => {
    text += chunk;
  });
  await once(socket, 'close');
  return text;
}

describe('answerClientError', () => {
  it('answers what the parser refuses with an Error body and closes the connection', async () => {
    const { port, server } = await serverWith((res) => res.end());
    try {
      const malformed = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n');
      expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(malformed).toContain('connection: close');
      expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 400,
        message: 'malformed HTTP request',
      });
      const large = await exchange(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`);
      expect(large).toMatch(/^HTTP\/1\.1 431 /);
      expect(large).toContain('"message":"request headers are too large"');
    } finally {
      server.close();
    }
  });
});

describe('closeAfterAnswer', () => {
  it('makes the answer a connection is working on end it', async () => {
    const held: ServerResponse[] = [];
    const { port, server } = await serverWith((res) => held.push(res));
    try {
      const socket = connect(port, '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk) => {
        text += chunk;
      });
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const [res] = held;
      if (res?.socket == null) throw new Error('the request came without its socket');
      closeAfterAnswer(res.socket);
      res.end('bye');
      await once(socket, 'close');
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(text.toLowerCase()).toContain('connection: close');
    } finally {
      server.close();
    }
  });
});

/** A connection to `port` whose text is collected as it comes. */
function openConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  const received = { text: '' };
  socket.setEncoding('utf8').on('data', (chunk) => {
    received.text += chunk;
  });
  return { socket, received };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

describe('a connection whose last answer is chosen', () => {
  it('answers every request it carried out, and carries out none read after', async () => {
    const held: ServerResponse[] = [];
    const { port, server } = await serverWith((res) => held.push(res));
    let read = 0;
    server.on('request', () => {
      read += 1;
    });
    try {
      const { socket, received } = openConnection(port);
      socket.write(GET + GET);
      await until(() => held.length === 2);
      const [first, second] = held;
      if (first?.socket == null || second === undefined) throw new Error('the requests came without their socket');
      closeAfterAnswer(first.socket);
      socket.write(GET);
      await until(() => read === 3);
      second.end('two');
      first.end('one');
      await once(socket, 'close');
      const answers = received.text.toLowerCase().split('http/1.1 ').slice(1);
      expect(answers).toHaveLength(2);
      expect(answers[0]).toContain('connection: keep-alive');
      expect(answers[0]?.endsWith('one')).toBe(true);
      expect(answers[1]).toContain('connection: close');
      expect(answers[1]?.endsWith('two')).toBe(true);
      expect(held).toHaveLength(2);
    } finally {
      server.close();
    }
  });
});

describe('closeIfIdle', () => {
  it('leaves a connection that owes a pipelined answer, and ends it once answered', async () => {
    const held: ServerResponse[] = [];
    const { port, server } = await serverWith((res) => held.push(res));
    try {
      const { socket, received } = openConnection(port);
      socket.write(GET + GET);
      await until(() => held.length === 2);
      const [first, second] = held;
      if (first?.socket == null || second === undefined) throw new Error('the requests came without their socket');
      const serverSide = first.socket;
      first.end('one');
      // The first answer has ended, the second is queued behind it: node would call this idle.
      closeIfIdle(serverSide);
      second.end('two');
      await until(() => received.text.endsWith('two'));
      closeIfIdle(serverSide);
      await once(socket, 'close');
      expect(received.text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    } finally {
      server.close();
    }
  });
});
