import { describe, expect, it } from 'vitest';
import {
  assertTokenTransportSafe,
  ClearTextTokenError,
  formatBaseUrl,
  isLoopbackHost,
  parseBaseUrl,
} from '../../src/client/base-url.js';
import { InvalidInputError } from '../../src/errors.js';

describe('parseBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['https://plants.example.com/v1/', 'https://plants.example.com/v1'],
    [' https://plants.example.com ', 'https://plants.example.com'],
  ])('reads %j as %s', (text, expected) => {
    expect(formatBaseUrl(parseBaseUrl(text))).toBe(expected);
  });

  it.each(['127.0.0.1:4010', 'ftp://x', 'http://user:pw@host', 'http://host/?q=1', 'http://host/#f', ''])(
    'refuses %j with exit 2',
    (text) => {
      expect(() => parseBaseUrl(text)).toThrow(InvalidInputError);
    },
  );
});

describe('loopback and clear-text tokens', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'api.localhost', '[::1]', '::1', '[::ffff:127.0.0.1]'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['example.com', '10.0.0.1', '128.0.0.1', '127.example.com', '[::2]', 'localhost.example.com'])(
    '%s is not loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('refuses http to another host unless --insecure, naming https and --insecure', () => {
    const url = parseBaseUrl('http://plants.example.com');
    let caught: unknown;
    try {
      assertTokenTransportSafe(url, { insecure: false });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).exitCode).toBe(2);
    expect((caught as InvalidInputError).message).toContain('https');
    expect(caught).toBeInstanceOf(ClearTextTokenError);
    expect((caught as ClearTextTokenError).origin).toBe(url.origin);
    expect(() => assertTokenTransportSafe(url, { insecure: true })).not.toThrow();
    expect(() =>
      assertTokenTransportSafe(parseBaseUrl('https://plants.example.com'), { insecure: false }),
    ).not.toThrow();
    expect(() => assertTokenTransportSafe(parseBaseUrl('http://localhost:1'), { insecure: false })).not.toThrow();
  });
});
